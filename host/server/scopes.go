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
			for _, t := range s.targets(req) {
				if miss := p.Missing(info, t.plugin, t.tool); miss != "" {
					reason := fmt.Sprintf("%s needs scope %q, which the token of %q lacks", t.what, miss, info.UserID)
					s.deny(audit.DenyAuth, info.UserID, "", reason, false, slog.String("method", method))
					return nil, &jsonrpc.Error{Code: CodeForbidden, Message: reason}
				}
			}
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			return s.filterList(p, info, res), nil
		}
	})
}

// gated is one thing a request reaches that a scope policy gates.
type gated struct{ plugin, tool, what string }

// targets lists what a request reaches: its target, or for
// subscriptions/listen (2026-07-28's resources/subscribe) each resource it
// subscribes to.
func (s *Server) targets(req mcp.Request) []gated {
	if r, ok := req.(*mcp.SubscriptionsListenRequest); ok {
		var out []gated
		if r.Params != nil && r.Params.Notifications != nil {
			for _, uri := range r.Params.Notifications.ResourceSubscriptions {
				if pl, found := s.reg.ResourceOwner(uri); found {
					out = append(out, gated{pl.Name(), "", fmt.Sprintf("resource %q", uri)})
				}
			}
		}
		return out
	}
	if plugin, tool, what, ok := s.target(req); ok {
		return []gated{{plugin, tool, what}}
	}
	return nil
}

// target names the plugin (and tool) a request would run, and describes
// it; ok is false for requests that run nothing a policy gates.
func (s *Server) target(req mcp.Request) (plugin, tool, what string, ok bool) {
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r.Params != nil {
			if t, found := s.reg.Lookup(r.Params.Name); found {
				return t.Plugin.Name(), t.Def.Name, fmt.Sprintf("tool %q", t.Def.Name), true
			}
		}
	case *mcp.GetPromptRequest:
		if r.Params != nil {
			if pr, found := s.reg.LookupPrompt(r.Params.Name); found {
				return pr.Plugin.Name(), "", fmt.Sprintf("prompt %q", r.Params.Name), true
			}
		}
	case *mcp.ReadResourceRequest:
		if r.Params != nil {
			if pl, found := s.reg.ResourceOwner(r.Params.URI); found {
				return pl.Name(), "", fmt.Sprintf("resource %q", r.Params.URI), true
			}
		}
	case *mcp.SubscribeRequest:
		if r.Params != nil {
			if pl, found := s.reg.ResourceOwner(r.Params.URI); found {
				return pl.Name(), "", fmt.Sprintf("resource %q", r.Params.URI), true
			}
		}
	case *mcp.CompleteRequest:
		if r.Params != nil && r.Params.Ref != nil {
			switch r.Params.Ref.Type {
			case "ref/prompt":
				if pr, found := s.reg.LookupPrompt(r.Params.Ref.Name); found {
					return pr.Plugin.Name(), "", fmt.Sprintf("prompt %q", r.Params.Ref.Name), true
				}
			case "ref/resource":
				// As registry.Complete resolves it: a template named
				// exactly, else the owner of a URI.
				if pl, found := s.reg.TemplateOwner(r.Params.Ref.URI); found {
					return pl.Name(), "", fmt.Sprintf("resource template %q", r.Params.Ref.URI), true
				}
				if pl, found := s.reg.ResourceOwner(r.Params.Ref.URI); found {
					return pl.Name(), "", fmt.Sprintf("resource %q", r.Params.Ref.URI), true
				}
			}
		}
	}
	return "", "", "", false
}

// filterList drops from a list result what the token may not use.
func (s *Server) filterList(p bearer.Policy, info *auth.TokenInfo, res mcp.Result) mcp.Result {
	switch lr := res.(type) {
	case *toolsWithExecution: // tools_execution.go
		cp := *lr
		cp.ListToolsResult = s.filterList(p, info, lr.ListToolsResult).(*mcp.ListToolsResult)
		return &cp
	case *mcp.ListToolsResult:
		cp := *lr
		cp.Tools = keep(lr.Tools, func(d *mcp.Tool) bool {
			t, ok := s.reg.Lookup(d.Name)
			return !ok || p.Missing(info, t.Plugin.Name(), d.Name) == ""
		})
		return &cp
	case *mcp.ListPromptsResult:
		cp := *lr
		cp.Prompts = keep(lr.Prompts, func(d *mcp.Prompt) bool {
			pr, ok := s.reg.LookupPrompt(d.Name)
			return !ok || p.Missing(info, pr.Plugin.Name(), "") == ""
		})
		return &cp
	case *mcp.ListResourcesResult:
		cp := *lr
		cp.Resources = keep(lr.Resources, func(d *mcp.Resource) bool {
			pl, ok := s.reg.ResourceOwner(d.URI)
			return !ok || p.Missing(info, pl.Name(), "") == ""
		})
		return &cp
	case *mcp.ListResourceTemplatesResult:
		cp := *lr
		cp.ResourceTemplates = keep(lr.ResourceTemplates, func(d *mcp.ResourceTemplate) bool {
			pl, ok := s.reg.TemplateOwner(d.URITemplate)
			return !ok || p.Missing(info, pl.Name(), "") == ""
		})
		return &cp
	}
	return res
}

func keep[T any](in []T, ok func(T) bool) []T {
	out := make([]T, 0, len(in))
	for _, v := range in {
		if ok(v) {
			out = append(out, v)
		}
	}
	return out
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
