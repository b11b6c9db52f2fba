package server

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client on stdin and stdout until stdin closes or ctx
// ends. Nothing else may write to stdout while it runs.
func (s *Server) ServeStdio(ctx context.Context) error {
	err := s.mcp.Run(ctx, codeTransport{idTransport{&mcp.StdioTransport{}}})
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// Connect serves one client on any go-sdk transport (in-memory, a pipe...).
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, codeTransport{idTransport{t}}, nil)
}
