package server

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CodeForbidden is the JSON-RPC error code of a tool call refused because
// the caller's token lacks the scope the tool needs. It is in the range
// JSON-RPC leaves to servers, clear of go-sdk's -32003/-32004 (client and
// server closing, which its client treats as a closed connection) and of
// the codes MCP defines (-32002, -3202x, -32042).
const CodeForbidden = -32030

// RequireScopes applies a scope policy to authenticated requests: a tool
// whose plugin or name needs a scope the caller's token lacks is left out
// of tools/list, and calling it is answered with a JSON-RPC error
// (CodeForbidden) naming the scope; the refusal is audited. Requests
// without a token (stdio, HTTP without authentication) are not affected.
// Call it before serving.
func (s *Server) RequireScopes(p bearer.Policy) {
	if p.Empty() {
		return
	}
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			info := tokenInfo(req)
			if info == nil {
				return next(ctx, method, req)
			}
			switch r := req.(type) {
			case *mcp.CallToolRequest:
				if r.Params == nil {
					break
				}
				t, ok := s.reg.Lookup(r.Params.Name)
				if !ok {
					break
				}
				if miss := p.Missing(info, t.Plugin.Name(), t.Def.Name); miss != "" {
					reason := fmt.Sprintf("tool %q needs scope %q, which the token of %q lacks", t.Def.Name, miss, info.UserID)
					s.deny(audit.DenyAuth, info.UserID, remoteOf(req), reason, slog.String("tool", t.Def.Name))
					return nil, &jsonrpc.Error{Code: CodeForbidden, Message: reason}
				}
			}
			res, err := next(ctx, method, req)
			if lt, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				kept := make([]*mcp.Tool, 0, len(lt.Tools))
				for _, def := range lt.Tools {
					t, ok := s.reg.Lookup(def.Name)
					if ok && p.Missing(info, t.Plugin.Name(), def.Name) != "" {
						continue
					}
					kept = append(kept, def)
				}
				cp := *lt
				cp.Tools = kept
				return &cp, nil
			}
			return res, err
		}
	})
}

// tokenInfo returns the verified token of a request, or nil.
func tokenInfo(req mcp.Request) *auth.TokenInfo {
	if ex := req.GetExtra(); ex != nil {
		return ex.TokenInfo
	}
	return nil
}

// remoteOf returns the client address of a request, when the transport
// knows it (not available through go-sdk's request extra: empty).
func remoteOf(mcp.Request) string { return "" }

// deny records a refusal in the audit log and the server log.
func (s *Server) deny(kind, principal, remote, reason string, attrs ...slog.Attr) {
	s.opts.Audit.Record(audit.Event{Kind: audit.KindDenial, Denial: kind, Principal: principal, Remote: remote, Reason: reason})
	args := []any{"denial", kind, "principal", principal, "remote", remote, "reason", reason}
	for _, a := range attrs {
		args = append(args, a)
	}
	s.logger.Warn("request refused", args...)
}
