package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/guestmeta"
	"github.com/mcpwasm/mcpwasm/host/server/internal/reqstate"
	"github.com/mcpwasm/mcpwasm/host/server/internal/taskwire"
	"github.com/mcpwasm/mcpwasm/host/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskSpec is what a task runs, as the store keeps it: any replica can
// start (or restart, after tasks/update) the call from it.
type taskSpec struct {
	Tool  string                  `json:"tool"`
	Args  json.RawMessage         `json:"args"`
	Meta  mcp.Meta                `json:"meta,omitempty"`
	Caps  *mcp.ClientCapabilities `json:"caps,omitempty"`
	Roots bool                    `json:"roots,omitempty"` // Caps.RootsV2, which does not marshal
	Who   string                  `json:"who"`
}

// callAsTask answers a tools/call that is a task's business: ok is false
// when the call is a plain call (the tool does not support tasks, or
// supports them optionally and the request did not declare the extension,
// or it gathers its input before its task starts and this request brings
// none).
func (s *Server) callAsTask(ctx context.Context, req mcp.Request) (res mcp.Result, err error, ok bool) {
	ctr, isCall := req.(*mcp.CallToolRequest)
	if !isCall || ctr.Params == nil {
		return nil, nil, false
	}
	t, found := s.reg.Lookup(ctr.Params.Name)
	if !found {
		return nil, nil, false
	}
	mode := t.Task.Mode // the plugin's declaration or the operator's setting
	if mode == registry.ModeForbidden || mode == "" {
		return nil, nil, false
	}
	declared := taskwire.Declares(req) && protocolOf(req) >= modernProtocol
	if !declared {
		if mode == registry.ModeRequired {
			return nil, taskwire.Missing(fmt.Sprintf("tool %q", ctr.Params.Name)), true
		}
		return nil, nil, false
	}
	who := principalOf(req)
	var answers map[string]json.RawMessage
	if t.Task.InputFirst {
		p := ctr.Params
		if len(p.InputResponses) == 0 && p.RequestState == "" {
			return nil, nil, false // the first round runs as a plain call, answering its input by round trip
		}
		rt, err := newRoundTrip(toolTarget(t.Def.Name), who, p.Arguments, p.InputResponses, p.RequestState, s.stateKey, func() {})
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}, true
		}
		answers = rt.answers
	}
	caps := ctr.ClientCapabilities()
	spec := taskSpec{Tool: t.Def.Name, Args: ctr.Params.Arguments, Meta: guestmeta.In(ctr.Params.Meta), Caps: caps, Who: who}
	if caps != nil && caps.RootsV2 != nil {
		spec.Roots = true
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}, true
	}
	r, err := s.tasks.Tasks.Create(ctx, who, raw, answers)
	if err != nil {
		return nil, taskwire.Error("", err), true
	}
	s.logger.InfoContext(ctx, "task created", "task", r.ID, "tool", t.Def.Name)
	return s.tasks.Created(r), nil, true
}

// taskFactory makes the Runner of a stored task.
func (s *Server) taskFactory(raw json.RawMessage) (tasks.Runner, error) {
	var spec taskSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("task spec: %v", err)
	}
	if spec.Roots && spec.Caps != nil {
		spec.Caps.RootsV2 = &mcp.RootCapabilities{}
	}
	return func(ctx context.Context, answers map[string]json.RawMessage) tasks.Outcome {
		return s.runTask(ctx, &spec, answers)
	}, nil
}

// runTask runs a task's tool once, from the start, with the answers
// gathered so far; the guest's unanswered requests become the task's
// input requests. It mirrors toolHandler without a client request: no
// progress or log notifications (nobody is listening), the task's time
// limit instead of the plugin's.
func (s *Server) runTask(ctx context.Context, spec *taskSpec, answers map[string]json.RawMessage) tasks.Outcome {
	fail := func(format string, a ...any) tasks.Outcome {
		return tasks.Outcome{Err: &tasks.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(format, a...)}}
	}
	ep := s.epochs.begin() // a reload does not close the plugin under the run (reload.go)
	defer s.epochs.end(ep)
	t, ok := s.reg.Lookup(spec.Tool)
	if !ok {
		return fail("tool %q is no longer served", spec.Tool)
	}
	if answers == nil {
		answers = map[string]json.RawMessage{}
	}
	cb := s.callbacksFor(nil, nil, t.Plugin, t.Def.Name)
	cb.caps = spec.Caps
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	cb.roundTrip = &roundTrip{answers: answers, counts: map[string]int{}, stop: stop, key: s.stateKey,
		what: toolTarget(t.Def.Name), args: reqstate.ArgsHash(spec.Args), who: spec.Who}
	inv := registry.Invocation{RequestInfo: registry.RequestInfo{Meta: spec.Meta}, Callbacks: cb}
	if spec.Caps != nil {
		inv.ClientCapabilities, _ = json.Marshal(spec.Caps)
	}
	mounts, ok, err := s.callMounts(ctx, t.Plugin, nil, spec.Caps, true, cb.roundTrip)
	if err != nil {
		return fail("could not learn the client's roots: %v", err)
	}
	if !ok {
		cb.roundTrip.need(rootsInputID, &mcp.ListRootsParams{})
		return pendingOutcome(cb.roundTrip)
	}
	inv.Mounts = mounts
	if d, ok := ctx.Deadline(); ok {
		inv.Timeout = time.Until(d) // the task's limit, not the plugin's
	}
	// The run is audited as a call of its own, the principal's, as it
	// happens detached from the tools/call that created it (audited
	// then, with the task as its result).
	var rec plugin.CallRecord
	inv.Record = &rec
	if s.opts.Audit != nil {
		ctx = audit.WithLog(ctx, s.opts.Audit)
	}
	start := time.Now()
	res := t.Call(ctx, registry.CallRequest{Arguments: spec.Args, Invocation: inv})
	s.opts.Audit.Record(audit.Event{Time: start, Kind: audit.KindCall, Method: "tools/call", Principal: spec.Who,
		Plugin: t.Plugin.Name(), SHA256: t.Plugin.SHA256(), Tool: spec.Tool,
		DurationMs: float64(time.Since(start).Microseconds()) / 1000, Outcome: outcome(res, nil, &rec),
		InputBytes: len(spec.Args), OutputBytes: rec.OutputBytes, Attrs: map[string]any{"task": true}})
	if out, asked := pendingOutcome(cb.roundTrip), cb.roundTrip.pending != nil; asked {
		return out
	}
	if err := cb.missingCapability(guestFailed(res)); err != nil {
		var je *jsonrpc.Error
		errors.As(err, &je)
		return tasks.Outcome{Err: &tasks.Error{Code: je.Code, Message: je.Message, Data: je.Data}}
	}
	if r, _ := s.scrubber.Answer(ctx, t.Plugin.Name(), spec.Tool, res, nil); r != nil {
		res = r.(*mcp.CallToolResult) // a tool result stays one (scrub.Scrubber.Answer)
	}
	if e := crashed(res); e != nil {
		return tasks.Outcome{Err: e}
	}
	b, err := json.Marshal(guestmeta.Result(res))
	if err != nil {
		return fail("could not encode the result: %v", err)
	}
	return tasks.Outcome{Result: b}
}

// crashed says whether a tool result is a failure of the run rather than
// the tool's answer: the guest trapped, panicked, ran out of memory or
// time, exited, or produced no result. Such a task ends failed, with the
// host's explanation and category; the tool's own isError results (and
// guest_error, invalid_arguments) end completed.
func crashed(res *mcp.CallToolResult) *tasks.Error {
	if !res.IsError {
		return nil
	}
	cat, _ := res.Meta[abi.MetaErrorKey].(string)
	switch abi.ErrorCategory(cat) {
	case "", abi.ErrGuest, abi.ErrInvalidArgs:
		return nil
	}
	msg := "the task's run failed"
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			msg = tc.Text
		}
	}
	data, _ := json.Marshal(res.Meta)
	return &tasks.Error{Code: jsonrpc.CodeInternalError, Message: msg, Data: data}
}
