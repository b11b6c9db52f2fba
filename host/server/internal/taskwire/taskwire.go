// Package taskwire is the wire side of MCP's io.modelcontextprotocol/tasks
// extension (SEP-2663) as protocol 2026-07-28 defines it: the params and
// results of tasks/get, tasks/update and tasks/cancel, served as go-sdk
// custom methods over a host/tasks manager; the errors a request gets; the
// checks of the extension's declaration and routing header. Package server
// decides which tools/call becomes a task and runs it (task_run.go).
package taskwire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"github.com/mcpwasm/mcpwasm/host/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Extension is the extension's identifier, under capabilities.extensions.
const Extension = "io.modelcontextprotocol/tasks"

// CodeOverload is mcpwasm's code for a request refused for load: too many
// live tasks, a full store.
const CodeOverload = -32000

// Params are the params of tasks/get, tasks/update and tasks/cancel.
type Params struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// Fields are a Task's wire fields (SEP-2663).
type Fields struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// Created answers a tools/call that started a task.
type Created struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Fields
}

// detailed answers tasks/get: the task, with its result, error or input
// requests inlined.
type detailed struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Fields
	Result        json.RawMessage            `json:"result,omitempty"`
	Error         *tasks.Error               `json:"error,omitempty"`
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
}

// ack answers tasks/update and tasks/cancel.
type ack struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// Methods serves tasks/get, tasks/update and tasks/cancel.
type Methods struct {
	// Tasks holds the tasks.
	Tasks *tasks.Manager
	// Answers reports whether resp is the kind of result an input request
	// of method asks for (an elicitation result to elicitation/create...).
	Answers func(method string, resp mcp.InputResponse) bool
}

// Add adds the methods to a go-sdk server. A request reaches them through
// WithPrincipal.
func (m *Methods) Add(s *mcp.Server) {
	mcp.AddReceivingCustomMethod(s, "tasks/get", m.get)
	mcp.AddReceivingCustomMethod(s, "tasks/update", m.update)
	mcp.AddReceivingCustomMethod(s, "tasks/cancel", m.cancel)
}

// Created is the answer to a tools/call that started task r.
func (m *Methods) Created(r *tasks.Record) *Created {
	return &Created{ResultType: "task", Fields: m.fields(r)}
}

func (m *Methods) fields(r *tasks.Record) Fields {
	return Fields{TaskID: r.ID, Status: string(r.Status), StatusMessage: r.Message,
		CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339Nano), LastUpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339Nano),
		TTLMs: r.TTL.Milliseconds(), PollIntervalMs: m.Tasks.Options().PollInterval.Milliseconds()}
}

type principalKey struct{}

// WithPrincipal hands the methods who the request acts for (tasks are
// bound to it), which go-sdk gives them only their params.
func WithPrincipal(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, principalKey{}, who)
}

func principal(ctx context.Context) string {
	who, _ := ctx.Value(principalKey{}).(string)
	return who
}

// Declares reports whether a request declares the extension in its client
// capabilities (per request in 2026-07-28).
func Declares(req mcp.Request) bool {
	r, ok := req.(interface {
		ClientCapabilities() *mcp.ClientCapabilities
	})
	if !ok {
		return false
	}
	caps := r.ClientCapabilities()
	if caps == nil {
		return false
	}
	_, ok = caps.Extensions[Extension]
	return ok
}

// Missing is the -32021 error naming the extension.
func Missing(what string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{Extension: map[string]any{}}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: what + " needs the client capability extensions[\"" + Extension + "\"], which the request did not declare", Data: data}
}

// CheckName holds an HTTP request for tasks/* of protocol modern or later
// to SEP-2663's routing header: Mcp-Name must be present and equal
// params.taskId (go-sdk checks it for tools/call, resources/read and
// prompts/get only).
func CheckName(req mcp.Request, modern string) error {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil || extra.Header.Get("Mcp-Protocol-Version") < modern {
		return nil // stdio, or an older protocol: no routing headers
	}
	p, ok := req.GetParams().(*Params)
	if !ok {
		return nil
	}
	name := extra.Header.Get("Mcp-Name")
	switch {
	case name == "":
		return &jsonrpc.Error{Code: mcp.CodeHeaderMismatch, Message: "missing required Mcp-Name header for a tasks method"}
	case name != p.TaskID:
		return &jsonrpc.Error{Code: mcp.CodeHeaderMismatch,
			Message: fmt.Sprintf("header mismatch: Mcp-Name header value '%s' does not match params.taskId", clip.String(name, clip.Log))}
	}
	return nil
}

// Error maps the manager's errors to JSON-RPC's.
func Error(id string, err error) error {
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown task %q (it may have expired)", clip.String(id, clip.Log))}
	case errors.Is(err, tasks.ErrTooMany):
		return &jsonrpc.Error{Code: CodeOverload, Message: "too many live tasks for this principal; wait for one to end or cancel one"}
	case errors.Is(err, tasks.ErrFull):
		return &jsonrpc.Error{Code: CodeOverload, Message: "the server keeps as many tasks as it may; retry once older ones expire"}
	case errors.Is(err, tasks.ErrTooLarge):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the task would exceed the task store's size limit (its arguments are too large)"}
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return err
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "task store: " + err.Error()}
}

func (m *Methods) get(ctx context.Context, _ *mcp.ServerSession, p *Params) (*detailed, error) {
	r, err := m.Tasks.Get(ctx, principal(ctx), p.TaskID)
	if err != nil {
		return nil, Error(p.TaskID, err)
	}
	d := &detailed{ResultType: "complete", Fields: m.fields(r)}
	switch r.Status {
	case tasks.Completed:
		d.Result = r.Result
	case tasks.Failed:
		d.Error = r.Err
	case tasks.InputRequired:
		d.InputRequests = r.Inputs
	}
	return d, nil
}

func (m *Methods) update(ctx context.Context, _ *mcp.ServerSession, p *Params) (*ack, error) {
	who := principal(ctx)
	r, err := m.Tasks.Get(ctx, who, p.TaskID)
	if err != nil {
		return nil, Error(p.TaskID, err)
	}
	for k, a := range p.InputResponses {
		req, ok := r.Inputs[k]
		if !ok {
			continue // not asked (or answered already): ignored
		}
		if err := m.check(k, req, a); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
	}
	if err := m.Tasks.Update(ctx, who, p.TaskID, p.InputResponses); err != nil {
		return nil, Error(p.TaskID, err)
	}
	return &ack{ResultType: "complete"}, nil
}

// check checks that an answer is the kind of result its request asks for.
func (m *Methods) check(key string, req, answer json.RawMessage) error {
	var r struct {
		Method string `json:"method"`
	}
	json.Unmarshal(req, &r)
	var im mcp.InputResponseMap
	if err := im.UnmarshalJSON([]byte(`{"k":` + string(answer) + `}`)); err != nil {
		return fmt.Errorf("inputResponses[%q]: %v", key, err)
	}
	if !m.Answers(r.Method, im["k"]) {
		return fmt.Errorf("inputResponses[%q]: not an answer to %s", key, r.Method)
	}
	return nil
}

func (m *Methods) cancel(ctx context.Context, _ *mcp.ServerSession, p *Params) (*ack, error) {
	if err := m.Tasks.Cancel(ctx, principal(ctx), p.TaskID); err != nil {
		return nil, Error(p.TaskID, err)
	}
	return &ack{ResultType: "complete"}, nil
}
