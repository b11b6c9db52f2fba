package server

import (
	"context"

	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client on o.In and o.Out (stdin and stdout by
// default) until the input ends or ctx ends. Nothing else may write to Out
// while it runs. A malformed line is answered with a JSON-RPC error and the
// server reads on; when the input ends, the requests in flight are answered
// first (see StdioOptions.DrainTimeout).
func (s *Server) ServeStdio(ctx context.Context, o StdioOptions) error {
	return transport.ServeStdio(ctx, s.mcp, o, s.logger)
}

// Connect serves one client on any go-sdk transport (in-memory, a pipe...).
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, transport.WithCodes(transport.WithIDs(t)), nil)
}

// StdioOptions configures ServeStdio (see package transport: the stdio
// framing, and the adapters that give handlers the request's id).
type StdioOptions = transport.StdioOptions
