// Package httpserve is the HTTP edge of the MCP server: the Streamable HTTP
// listener and handler, and what stands in front of it — body and header
// guards, the Host check, the write-stall deadline, forwarded addresses,
// bearer access and rate limits — and the operator's endpoints (health,
// metrics) on their own listener.
//
// It depends on package server through the small Server interface and
// server's value types; package server knows nothing of listeners, bodies
// or tokens (as go-sdk keeps its Streamable HTTP handler beside its server).
package httpserve

import (
	"log/slog"

	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is what the edge needs of the MCP server; *server.Server is one.
type Server interface {
	// MCP is the go-sdk server the Streamable HTTP handler serves.
	MCP() *mcp.Server
	// Logger receives the edge's diagnostics.
	Logger() *slog.Logger
	// Readiness is what /readyz reports.
	Readiness() server.Readiness
	// Deny records a refusal in the audit log and the log (at debug level
	// when quiet).
	Deny(kind, principal, remote, reason string, quiet bool)
}

var _ Server = (*server.Server)(nil)
