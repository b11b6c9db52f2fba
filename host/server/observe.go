package server

import (
	"encoding/json"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/traceparent"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every request that runs guest code for a client (tools/call,
// resources/read, prompts/get, completion/complete) is observed by
// guestPath (guest.go): its context gets the request's traceparent (so the
// call's log lines carry it) and the audit log (so the sandbox's guards can
// record denials), and when it ends one audit event records it, described
// here. Metrics count those events (package metrics observes the audit
// log), so they see exactly what the audit log sees.

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
	case *mcp.CompleteRequest:
		if r.Params == nil || r.Params.Ref == nil {
			return ev
		}
		ref := r.Params.Ref
		switch ref.Type {
		case "ref/prompt":
			ev.Tool = ref.Name
			if pr, ok := s.reg.LookupPrompt(ref.Name); ok {
				p = pr.Plugin
			}
		case "ref/resource": // as registry.Complete resolves it
			ev.Tool = ref.URI
			var ok bool
			if p, ok = s.reg.TemplateOwner(ref.URI); !ok {
				p, _ = s.reg.ResourceOwner(ref.URI)
				if t := s.reg.MatchedTemplate(ref.URI); t != "" {
					ev.Attrs = map[string]any{"template": t} // as for a read: the URI is the client's
				}
			}
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
	if len(ev.Tool) > clip.Audit {
		// The client's words (a tool nobody serves, a URI): a line
		// per request must not carry megabytes of them.
		ev.Tool = ev.Tool[:clip.Audit] + "…"
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
