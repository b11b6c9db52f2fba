package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/internal/growstack"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/capscache"
	"github.com/mcpwasm/mcpwasm/host/server/internal/guestmeta"
	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
	"github.com/mcpwasm/mcpwasm/host/traceparent"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The guest-request path. Every client request that runs guest code —
// tools/call, resources/read, prompts/get, completion/complete — passes
// through guestPath (one receiving middleware) and then open (the handler's
// preamble), and nowhere else does any of this:
//
//   - drain: counted in and out, refused once Drain began (drain.go);
//   - reload: held in the current epoch, so a retired plugin is not closed
//     under it (reload.go);
//   - cancellation: the request's context is also cancelled when the HTTP
//     request it came in goes away (go-sdk links it only for 2026-07-28);
//   - audit and metrics: one audit event when it ends (metrics observe the
//     audit log), its traceparent in the context for log lines;
//   - callbacks, round trips, the client's request info (open) and the
//     mounts (mount), which reach the sandbox as explicit call options
//     (registry.Invocation, plugin.CallOptions), not context values.
//
// Scopes are checked before (RequireScopes, the outermost middleware), the
// deadline within (plugin.Invoke: the plugin's time limit, counted from
// when the call starts, and reported to the guest in context.deadline_ms).

// guestMethods are the requests that run guest code.
var guestMethods = map[string]bool{"tools/call": true, "resources/read": true, "prompts/get": true,
	"completion/complete": true}

// guestState is what guestPath hands the handler of one guest request: the
// record the sandbox fills for the audit event.
type guestState struct {
	record plugin.CallRecord
}

type guestKey struct{}

// guestPath is the receiving middleware every guest request passes
// through; it sits innermost, after waitReady, so a request still waiting
// for its plugin holds nothing back. resources/subscribe, which looks its
// URI up, is only held in the epoch.
func (s *Server) guestPath(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !guestMethods[method] {
			if method == "resources/subscribe" {
				ep := s.epochs.begin()
				defer s.epochs.end(ep)
			}
			return next(ctx, method, req)
		}
		growstack.Grow()
		if !s.drain.begin() {
			return nil, errShuttingDown
		}
		defer s.drain.end()
		ep := s.epochs.begin()
		defer s.epochs.end(ep)
		ctx, unlink := transport.LinkedContext(ctx, req.GetExtra())
		defer unlink()

		start := time.Now()
		ev := s.describe(method, req)
		ctx = traceparent.NewContext(ctx, ev.TraceParent)
		if s.opts.Audit != nil {
			ctx = audit.WithLog(ctx, s.opts.Audit)
		}
		if err := s.heldError(method, req); err != nil {
			return nil, err
		}
		st := &guestState{}
		res, err := next(context.WithValue(ctx, guestKey{}, st), method, req)
		res, err = s.scrubber.Answer(ctx, ev.Plugin, ev.Tool, res, err)
		ev.Time = start
		ev.DurationMs = float64(time.Since(start).Microseconds()) / 1000
		ev.Outcome = outcome(res, err, &st.record)
		ev.OutputBytes = st.record.OutputBytes
		s.logger.DebugContext(ctx, "call", "method", method, "tool", ev.Tool, "plugin", ev.Plugin,
			"outcome", ev.Outcome, "ms", ev.DurationMs)
		s.opts.Audit.Record(ev)
		return res, err
	}
}

// guestCall is one guest request's inputs for the sandbox, gathered by
// open.
type guestCall struct {
	ctx  context.Context
	stop context.CancelFunc // ends the call (a round trip that needs input stops the guest)
	cb   *callbacks
	inv  registry.Invocation
}

// openSpec is what a handler says about its request to open.
type openSpec struct {
	plugin       *plugin.Plugin
	name, target string          // what the call serves; what a round trip's state is bound to
	args         json.RawMessage // what a round trip's state is bound to
	meta         mcp.Meta
	token        any // the progress token
	responses    mcp.InputResponseMap
	state        string
	noCallbacks  bool // completions report nothing to the client
}

// open prepares a guest request: its callbacks and (2026-07-28) round trip,
// the request info the guest is told, and the sandbox record. The caller
// must call g.stop when done.
func (s *Server) open(ctx context.Context, req mcp.Request, o openSpec) (*guestCall, error) {
	g := &guestCall{}
	g.ctx, g.stop = context.WithCancel(ctx)
	var caps *mcp.ClientCapabilities
	var rawCaps json.RawMessage
	version := ""
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if sr, ok := req.(interface {
		capscache.Request
		ProtocolVersion() string
	}); ok {
		caps, rawCaps = s.caps.Get(sr)
		version = sr.ProtocolVersion()
	}
	if !o.noCallbacks {
		g.cb = s.callbacksFor(ss, o.token, o.plugin, o.name)
		g.cb.caps = caps
		if err := s.startRoundTrip(g.cb, req, version, o.target, o.args, o.responses, o.state, g.stop); err != nil {
			g.stop()
			return nil, err
		}
		g.inv.Callbacks = g.cb
	}
	g.inv.RequestInfo = requestInfo(req.GetExtra(), o.meta, rawCaps)
	if st, ok := ctx.Value(guestKey{}).(*guestState); ok {
		g.inv.Record = &st.record
	}
	return g, nil
}

// mount (tools and reads, which open with callbacks) narrows the plugin's grants to the client's roots for this call.
// ok is false when a 2026-07-28 call must first ask the client for its
// roots (the round trip then holds what to ask).
func (s *Server) mount(g *guestCall, req mcp.Request, p *plugin.Plugin) (ok bool, err error) {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	modern := false
	if sr, isServer := req.(interface{ ProtocolVersion() string }); isServer {
		modern = sr.ProtocolVersion() >= modernProtocol
	}
	g.inv.Mounts, ok, err = s.callMounts(g.ctx, p, ss, g.cb.caps, modern, g.cb.roundTrip)
	return ok, err
}

// requestInfo is what the guest serving req is told about it.
func requestInfo(extra *mcp.RequestExtra, meta mcp.Meta, caps json.RawMessage) registry.RequestInfo {
	return registry.RequestInfo{ID: transport.RequestID(extra), Meta: guestmeta.In(meta), ClientCapabilities: caps}
}
