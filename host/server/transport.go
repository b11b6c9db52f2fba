package server

import (
	"context"
	"errors"

	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client on o.In and o.Out (stdin and stdout by
// default) until the input ends or ctx ends. Nothing else may write to Out
// while it runs. A malformed line is answered with a JSON-RPC error and the
// server reads on; when the input ends, the requests in flight are answered
// first (see StdioOptions.DrainTimeout).
func (s *Server) ServeStdio(ctx context.Context, o StdioOptions) error {
	err := s.mcp.Run(ctx, codeTransport{transport.Stdio(o, s.logger)})
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// Connect serves one client on any go-sdk transport (in-memory, a pipe...).
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, codeTransport{transport.WithIDs(t)}, nil)
}

// StdioOptions configures ServeStdio (see package transport: the stdio
// framing, and the adapters that give handlers the request's id).
type StdioOptions = transport.StdioOptions
