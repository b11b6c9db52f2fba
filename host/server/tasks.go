package server

import (
	"context"

	"github.com/mcpwasm/mcpwasm/host/server/internal/taskwire"
	"github.com/mcpwasm/mcpwasm/host/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tasks: MCP's io.modelcontextprotocol/tasks extension (SEP-2663) as
// protocol 2026-07-28 defines it. A tools/call to a tool that supports
// tasks, from a request that declares the extension in its _meta client
// capabilities, answers a CreateTaskResult at once and runs the tool
// detached from the request (package tasks, task_run.go); the client
// polls tasks/get, answers input requests with tasks/update and stops the
// task with tasks/cancel (package taskwire serves the three methods as
// go-sdk custom methods). The tools/call interception is receiving
// middleware (taskGate).

// TaskExtension is the extension's identifier, under capabilities.extensions.
const TaskExtension = taskwire.Extension

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
	s.tasks = &taskwire.Methods{Tasks: m, Answers: answers}
	caps.Extensions = map[string]any{TaskExtension: map[string]any{}}
}

// CloseTasks stops the task manager: tasks this process runs end failed.
func (s *Server) CloseTasks() error {
	if s.tasks == nil {
		return nil
	}
	return s.tasks.Tasks.Close()
}

// principalOf is who a request acts for: its token's subject, "" without
// authentication. Tasks are bound to it.
func principalOf(req mcp.Request) string {
	if info := tokenInfo(req); info != nil {
		return info.UserID
	}
	return ""
}

func protocolOf(req mcp.Request) string {
	if r, ok := req.(interface{ ProtocolVersion() string }); ok {
		return r.ProtocolVersion()
	}
	return ""
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
			if !taskwire.Declares(req) {
				return nil, taskwire.Missing(method)
			}
			if err := taskwire.CheckName(req, modernProtocol); err != nil {
				return nil, err
			}
			ctx = taskwire.WithPrincipal(ctx, principalOf(req))
		case "tools/call":
			if res, err, ok := s.callAsTask(ctx, req); ok {
				return res, err
			}
		}
		return next(ctx, method, req)
	}
}
