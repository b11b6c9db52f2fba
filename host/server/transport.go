package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client on o.In and o.Out (stdin and stdout by
// default) until the input ends or ctx ends. Nothing else may write to Out
// while it runs. A malformed line is answered with a JSON-RPC error and the
// server reads on; when the input ends, the requests in flight are answered
// first (see StdioOptions.DrainTimeout).
func (s *Server) ServeStdio(ctx context.Context, o StdioOptions) error {
	err := s.mcp.Run(ctx, &stdioTransport{opts: o, logger: s.logger})
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// HTTPOptions configures the Streamable HTTP handler.
type HTTPOptions struct {
	// Stateless serves every request on its own, without sessions. It is
	// required for protocol 2026-07-28 clients; it rules out server-to-client
	// requests for older clients.
	Stateless bool
	// MaxBodyBytes bounds a request body (default 4 MiB → 413).
	MaxBodyBytes int64
	// SessionTimeout closes idle stateful sessions (default 30 minutes).
	SessionTimeout time.Duration
}

// HTTPHandler returns the Streamable HTTP handler: go-sdk's, with client
// cancellation propagated to guests, a body limit, idle-session expiry, and
// cross-origin protection (a foreign Origin gets 403).
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	if o.SessionTimeout == 0 {
		o.SessionTimeout = 30 * time.Minute
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = mcp.DefaultMaxRequestBodyBytes
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:                    o.Stateless,
		MaxRequestBodyBytes:          o.MaxBodyBytes,
		SessionTimeout:               o.SessionTimeout,
		PropagateRequestCancellation: true,
		Logger:                       s.logger,
	})
	return http.NewCrossOriginProtection().Handler(withRequestID(h, o.MaxBodyBytes))
}

// Connect serves one client on any go-sdk transport (in-memory, a pipe...).
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, idTransport{t}, nil)
}
