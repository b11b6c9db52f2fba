package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/traceparent"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every request that runs guest code for a client (tools/call,
// resources/read, prompts/get) is observed here: its context gets the
// request's traceparent (so the call's log lines carry it) and the audit
// log (so the sandbox's guards can record denials), and when it ends one
// audit event records it. Metrics count those events (package metrics
// observes the audit log), so they see exactly what the audit log sees.

// Outcomes of a call besides the ABI's error categories.
const (
	// OutcomeOK is a call that succeeded.
	OutcomeOK = "ok"
	// OutcomeToolError is a tool that answered isError itself.
	OutcomeToolError = "tool_error"
	// OutcomeError is a protocol error from outside the sandbox (an
	// unknown tool, a resource not found, a malformed guest answer the
	// server refused).
	OutcomeError = "error"
)

// maxAuditName bounds the tool name, prompt name or URI an audit event
// records.
const maxAuditName = 1024

// observedMethods are the requests recorded in the audit log.
var observedMethods = map[string]bool{"tools/call": true, "resources/read": true, "prompts/get": true}

// observe is the innermost receiving middleware: it runs after a request
// was admitted (see track) and its target published (see waitReady).
func (s *Server) observe(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !observedMethods[method] {
			return next(ctx, method, req)
		}
		start := time.Now()
		ev := s.describe(method, req)
		ctx = traceparent.NewContext(ctx, ev.TraceParent)
		if s.opts.Audit != nil {
			ctx = audit.WithLog(ctx, s.opts.Audit)
		}
		var rec plugin.CallRecord
		ctx = plugin.WithRecord(ctx, &rec)
		res, err := next(ctx, method, req)
		ev.Time = start
		ev.DurationMs = float64(time.Since(start).Microseconds()) / 1000
		ev.Outcome = outcome(res, err, &rec)
		ev.OutputBytes = rec.OutputBytes
		s.logger.DebugContext(ctx, "call", "method", method, "tool", ev.Tool, "plugin", ev.Plugin,
			"outcome", ev.Outcome, "ms", ev.DurationMs)
		s.opts.Audit.Record(ev)
		return res, err
	}
}

// describe fills what a request says about itself: its session, principal,
// target, the plugin serving it, its arguments and traceparent.
func (s *Server) describe(method string, req mcp.Request) audit.Event {
	ev := audit.Event{Kind: audit.KindCall, Method: method}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		ev.Session = ss.ID()
	}
	if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
		ev.Principal = ex.TokenInfo.UserID
	}
	var p *plugin.Plugin
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r.Params == nil {
			return ev
		}
		ev.Tool = r.Params.Name
		ev.Arguments = r.Params.Arguments
		ev.InputBytes = len(r.Params.Arguments)
		if t, ok := s.reg.Lookup(r.Params.Name); ok {
			p = t.Plugin
		}
	case *mcp.ReadResourceRequest:
		if r.Params == nil {
			return ev
		}
		ev.Tool = r.Params.URI
		p, _ = s.reg.ResourceOwner(r.Params.URI)
		if t := s.reg.MatchedTemplate(r.Params.URI); t != "" {
			ev.Attrs = map[string]any{"template": t}
		}
	case *mcp.GetPromptRequest:
		if r.Params == nil {
			return ev
		}
		ev.Tool = r.Params.Name
		if len(r.Params.Arguments) > 0 {
			ev.Arguments, _ = json.Marshal(r.Params.Arguments)
			ev.InputBytes = len(ev.Arguments)
		}
		if pr, ok := s.reg.LookupPrompt(r.Params.Name); ok {
			p = pr.Plugin
		}
	}
	if p != nil {
		ev.Plugin, ev.SHA256 = p.Name(), p.SHA256()
	}
	if len(ev.Tool) > maxAuditName {
		// The client's words (a tool nobody serves, a URI): a line
		// per request must not carry megabytes of them.
		ev.Tool = ev.Tool[:maxAuditName] + "…"
	}
	if params := req.GetParams(); params != nil {
		ev.TraceParent = traceparent.FromMeta(params.GetMeta())
	}
	return ev
}

// outcome names how a call ended: ok, the ABI category of a sandbox
// failure, tool_error, or error.
func outcome(res mcp.Result, err error, rec *plugin.CallRecord) string {
	if err != nil {
		if rec.Category != "" {
			return string(rec.Category)
		}
		return OutcomeError
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
		if c, ok := r.Meta[abi.MetaErrorKey].(string); ok && c != "" {
			return c
		}
		return OutcomeToolError
	}
	return OutcomeOK
}
