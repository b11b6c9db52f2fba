package server

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/server/internal/reach"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RequireScopes applies a scope policy to authenticated requests. What a
// token lacks the scope for is left out of the lists (tools, prompts,
// resources, resource templates) and a request for it (tools/call,
// prompts/get, resources/read and subscribe, completion/complete) is
// answered with a JSON-RPC error, CodeForbidden, naming the scope; the
// refusal is audited. A plugin's scope covers all it serves; a tool's own
// scope covers that tool. Requests without a token (stdio, HTTP without
// authentication) are not affected. Call it before serving.
func (s *Server) RequireScopes(p bearer.Policy) {
	if p.Empty() {
		return
	}
	s.scopes.Store(p)
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			info := tokenInfo(req)
			if info == nil {
				return next(ctx, method, req)
			}
			for _, t := range reach.Of(s.reg, req) {
				if miss := p.Missing(info, t.Plugin.Name(), t.ToolName()); miss != "" {
					reason := fmt.Sprintf("%s needs scope %q, which the token of %q lacks", t.What, miss, info.UserID)
					s.deny(audit.DenyAuth, info.UserID, "", reason, false, slog.String("method", method))
					return nil, &jsonrpc.Error{Code: CodeForbidden, Message: reason}
				}
			}
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			return s.filterList(res, func(t reach.Target) bool { return p.Missing(info, t.Plugin.Name(), t.ToolName()) == "" }), nil
		}
	})
}

// filterList drops from a list result what keep refuses (reach.Filter),
// a 2026-07-28 tools/list with its execution fields included.
func (s *Server) filterList(res mcp.Result, keep func(reach.Target) bool) mcp.Result {
	if lr, ok := res.(*toolsWithExecution); ok { // tools_execution.go
		cp := *lr
		cp.ListToolsResult = reach.Filter(s.reg, lr.ListToolsResult, keep).(*mcp.ListToolsResult)
		return &cp
	}
	return reach.Filter(s.reg, res, keep)
}

// tokenInfo returns the verified token of a request, or nil.
func tokenInfo(req mcp.Request) *auth.TokenInfo {
	if ex := req.GetExtra(); ex != nil {
		return ex.TokenInfo
	}
	return nil
}

// Deny records a refusal in the audit log and the server log (at debug
// level when quiet, else warn); the HTTP edge reports its refusals here.
func (s *Server) Deny(kind, principal, remote, reason string, quiet bool) {
	s.deny(kind, principal, remote, reason, quiet)
}

// deny records a refusal in the audit log and the server log (at debug
// level when quiet, else warn).
func (s *Server) deny(kind, principal, remote, reason string, quiet bool, attrs ...slog.Attr) {
	s.opts.Audit.Record(audit.Event{Kind: audit.KindDenial, Denial: kind, Principal: principal, Remote: remote, Reason: reason})
	args := []any{"denial", kind, "principal", principal, "remote", remote, "reason", reason}
	for _, a := range attrs {
		args = append(args, a)
	}
	level := slog.LevelWarn
	if quiet {
		level = slog.LevelDebug
	}
	s.logger.Log(context.Background(), level, "request refused", args...)
}
