package server

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

// Tasks: MCP's io.modelcontextprotocol/tasks extension (SEP-2663) as
// protocol 2026-07-28 defines it. A tools/call to a tool that supports
// tasks, from a request that declares the extension in its _meta client
// capabilities, answers a CreateTaskResult at once and runs the tool
// detached from the request (package tasks, task_run.go); the client
// polls tasks/get, answers input requests with tasks/update and stops the
// task with tasks/cancel. go-sdk carries all of it: the three methods are
// custom methods in its own table (AddReceivingCustomMethod), the results
// embed mcp.ResultBase, and the tools/call interception is receiving
// middleware.

// TaskExtension is the extension's identifier, under capabilities.extensions.
const TaskExtension = "io.modelcontextprotocol/tasks"

// TaskOptions configures tasks.
type TaskOptions struct {
	// Disabled turns tasks off: the extension is not advertised and every
	// tool is called as a plain call.
	Disabled bool
	// Manager options: the store (in memory if nil), ttl, time limit,
	// per-principal cap, lease. Factory is the server's.
	tasks.Options
}

// setupTasks starts the task manager and advertises the extension.
func (s *Server) setupTasks(caps *mcp.ServerCapabilities) {
	o := s.opts.Tasks
	if o.Disabled {
		return
	}
	mo := o.Options
	mo.Factory = s.taskFactory
	if mo.Logger == nil {
		mo.Logger = s.logger
	}
	m, err := tasks.New(mo)
	if err != nil {
		s.logger.Error("tasks are off", "error", err)
		return
	}
	s.tasks = m
	caps.Extensions = map[string]any{TaskExtension: map[string]any{}}
}

// serveTasks adds the task methods (taskGate, the innermost receiving
// middleware, intercepts tools/call).
func (s *Server) serveTasks() {
	if s.tasks == nil {
		return
	}
	mcp.AddReceivingCustomMethod(s.mcp, "tasks/get", s.tasksGet)
	mcp.AddReceivingCustomMethod(s.mcp, "tasks/update", s.tasksUpdate)
	mcp.AddReceivingCustomMethod(s.mcp, "tasks/cancel", s.tasksCancel)
}

// CloseTasks stops the task manager: tasks this process runs end failed.
func (s *Server) CloseTasks() error {
	if s.tasks == nil {
		return nil
	}
	return s.tasks.Close()
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// taskFields are a Task's wire fields (SEP-2663).
type taskFields struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// createTaskResult answers a tools/call that started a task.
type createTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskFields
}

// detailedTask answers tasks/get: the task, with its result, error or
// input requests inlined.
type detailedTask struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskFields
	Result        json.RawMessage            `json:"result,omitempty"`
	Error         *tasks.Error               `json:"error,omitempty"`
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
}

// ackResult answers tasks/update and tasks/cancel.
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

func (s *Server) fields(r *tasks.Record) taskFields {
	return taskFields{TaskID: r.ID, Status: string(r.Status), StatusMessage: r.Message,
		CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339Nano), LastUpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339Nano),
		TTLMs: r.TTL.Milliseconds(), PollIntervalMs: s.tasks.Options().PollInterval.Milliseconds()}
}

// principalOf is who a request acts for: its token's subject, "" without
// authentication. Tasks are bound to it.
func principalOf(req mcp.Request) string {
	if info := tokenInfo(req); info != nil {
		return info.UserID
	}
	return ""
}

type principalKey struct{}

// principalFromContext is the principal taskGate found for a tasks/*
// request.
func principalFromContext(ctx context.Context) string {
	who, _ := ctx.Value(principalKey{}).(string)
	return who
}

// declaresTasks reports whether a request declares the extension in its
// client capabilities (per request in 2026-07-28).
func declaresTasks(req mcp.Request) bool {
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
	_, ok = caps.Extensions[TaskExtension]
	return ok
}

func protocolOf(req mcp.Request) string {
	if r, ok := req.(interface{ ProtocolVersion() string }); ok {
		return r.ProtocolVersion()
	}
	return ""
}

// missingTasksExtension is the -32021 error naming the extension.
func missingTasksExtension(what string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{TaskExtension: map[string]any{}}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: what + " needs the client capability extensions[\"" + TaskExtension + "\"], which the request did not declare", Data: data}
}

// taskGate is the innermost receiving middleware (inside waitReady, the
// drain and the audit): it refuses tasks/* to a request that did not
// declare the extension or whose Mcp-Name header disagrees with its
// taskId, and turns a tools/call into a task when the tool and the
// request allow it. With tasks off it passes everything on.
func (s *Server) taskGate(next mcp.MethodHandler) mcp.MethodHandler {
	if s.tasks == nil {
		return next
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tasks/get", "tasks/update", "tasks/cancel":
			if !declaresTasks(req) {
				return nil, missingTasksExtension(method)
			}
			if err := checkTaskName(req); err != nil {
				return nil, err
			}
			ctx = context.WithValue(ctx, principalKey{}, principalOf(req))
		case "tools/call":
			if res, err, ok := s.callAsTask(ctx, req); ok {
				return res, err
			}
		}
		return next(ctx, method, req)
	}
}

// checkTaskName holds a 2026-07-28 HTTP request for tasks/* to SEP-2663's
// routing header: Mcp-Name must be present and equal params.taskId
// (go-sdk checks it for tools/call, resources/read and prompts/get only).
func checkTaskName(req mcp.Request) error {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil || extra.Header.Get("Mcp-Protocol-Version") < modernProtocol {
		return nil // stdio, or an older protocol: no routing headers
	}
	p, ok := req.GetParams().(*taskParams)
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

// taskError maps the manager's errors to JSON-RPC's.
func taskError(id string, err error) error {
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown task %q (it may have expired)", clip.String(id, clip.Log))}
	case errors.Is(err, tasks.ErrTooMany):
		return &jsonrpc.Error{Code: codeOverload, Message: "too many live tasks for this principal; wait for one to end or cancel one"}
	case errors.Is(err, tasks.ErrFull):
		return &jsonrpc.Error{Code: codeOverload, Message: "the server keeps as many tasks as it may; retry once older ones expire"}
	case errors.Is(err, tasks.ErrTooLarge):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the task would exceed the task store's size limit (its arguments are too large)"}
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return err
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "task store: " + err.Error()}
}

func (s *Server) tasksGet(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*detailedTask, error) {
	r, err := s.tasks.Get(ctx, principalFromContext(ctx), p.TaskID)
	if err != nil {
		return nil, taskError(p.TaskID, err)
	}
	d := &detailedTask{ResultType: "complete", taskFields: s.fields(r)}
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

func (s *Server) tasksUpdate(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*ackResult, error) {
	who := principalFromContext(ctx)
	r, err := s.tasks.Get(ctx, who, p.TaskID)
	if err != nil {
		return nil, taskError(p.TaskID, err)
	}
	for k, a := range p.InputResponses {
		req, ok := r.Inputs[k]
		if !ok {
			continue // not asked (or answered already): ignored
		}
		if err := checkResponse(k, req, a); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
	}
	if err := s.tasks.Update(ctx, who, p.TaskID, p.InputResponses); err != nil {
		return nil, taskError(p.TaskID, err)
	}
	return &ackResult{ResultType: "complete"}, nil
}

// checkResponse checks that an answer is the kind of result its request
// asks for (an elicitation result to elicitation/create...).
func checkResponse(key string, req, answer json.RawMessage) error {
	var r struct {
		Method string `json:"method"`
	}
	json.Unmarshal(req, &r)
	var m mcp.InputResponseMap
	if err := m.UnmarshalJSON([]byte(`{"k":` + string(answer) + `}`)); err != nil {
		return fmt.Errorf("inputResponses[%q]: %v", key, err)
	}
	if !answers(r.Method, m["k"]) {
		return fmt.Errorf("inputResponses[%q]: not an answer to %s", key, r.Method)
	}
	return nil
}

func (s *Server) tasksCancel(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*ackResult, error) {
	if err := s.tasks.Cancel(ctx, principalFromContext(ctx), p.TaskID); err != nil {
		return nil, taskError(p.TaskID, err)
	}
	return &ackResult{ResultType: "complete"}, nil
}
