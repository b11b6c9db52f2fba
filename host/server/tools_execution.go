package server

import (
	"context"
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools/list shows each tool's execution.taskSupport, the mode in force:
// the plugin's declaration, or the operator's `tasks = { tool = mode }`
// over it. go-sdk v1.8.0's Tool has no execution field (no tasks API,
// go-sdk#626), so the field was dropped on the way out: a client could not
// tell a tool it had to call as a task from one it could not. It is shown
// to 2026-07-28 requests only, the only ones that create tasks here.

// toolsWithExecution is a tools/list result whose tools carry execution
// objects, by exposed name.
type toolsWithExecution struct {
	*mcp.ListToolsResult
	modes map[string]string
}

// MarshalJSON writes the result as go-sdk would, each tool in modes with
// "execution": {"taskSupport": mode}.
func (r *toolsWithExecution) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(r.ListToolsResult)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(fields["tools"], &tools); err != nil {
		return nil, err
	}
	for _, t := range tools {
		var name string
		json.Unmarshal(t["name"], &name)
		if m, ok := r.modes[name]; ok {
			t["execution"], _ = json.Marshal(map[string]string{"taskSupport": m})
		}
	}
	if fields["tools"], err = json.Marshal(tools); err != nil {
		return nil, err
	}
	return json.Marshal(fields)
}

// toolExecution is the receiving middleware that adds the execution
// objects to a 2026-07-28 tools/list (none when tasks are not served).
func (s *Server) toolExecution(next mcp.MethodHandler) mcp.MethodHandler {
	if s.tasks == nil {
		return next
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		lr, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || method != "tools/list" || protocolOf(req) < modernProtocol {
			return res, err
		}
		modes := map[string]string{}
		for _, d := range lr.Tools {
			if t, found := s.reg.Lookup(d.Name); found && t.Task.Mode != registry.ModeForbidden && t.Task.Mode != "" {
				modes[d.Name] = t.Task.Mode
			}
		}
		if len(modes) == 0 {
			return res, nil
		}
		return &toolsWithExecution{ListToolsResult: lr, modes: modes}, nil
	}
}
