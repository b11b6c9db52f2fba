package registry

import (
	"encoding/json"
	"fmt"
)

// TaskSupport is how a tool relates to tasks (MCP's
// io.modelcontextprotocol/tasks extension).
type TaskSupport struct {
	// Mode is ModeForbidden (the default: always a plain call),
	// ModeOptional (a task when the request declares the extension) or
	// ModeRequired (a request without the extension is refused, -32021).
	Mode string
	// InputFirst: the guest's input requests are answered by multi
	// round-trip on tools/call, and the task starts with the request that
	// brings every answer the guest asked for.
	InputFirst bool
}

// Task support modes, as MCP's execution.taskSupport names them.
const (
	ModeForbidden = "forbidden"
	ModeOptional  = "optional"
	ModeRequired  = "required"
)

// ValidMode reports whether m names a task support mode.
func ValidMode(m string) bool { return m == ModeForbidden || m == ModeOptional || m == ModeRequired }

// taskSupport reads a tool declaration's "execution" object:
// {"taskSupport": "forbidden" | "optional" | "required", "inputFirst": bool}.
func taskSupport(raw json.RawMessage) (TaskSupport, error) {
	var d struct {
		Execution *struct {
			TaskSupport *string `json:"taskSupport"`
			InputFirst  bool    `json:"inputFirst"`
		} `json:"execution"`
	}
	ts := TaskSupport{Mode: ModeForbidden}
	if err := json.Unmarshal(raw, &d); err != nil {
		return ts, fmt.Errorf(`"execution": %v`, err)
	}
	if d.Execution == nil {
		return ts, nil
	}
	if m := d.Execution.TaskSupport; m != nil {
		if !ValidMode(*m) {
			return ts, fmt.Errorf(`"execution.taskSupport" is %q; want "forbidden", "optional" or "required"`, *m)
		}
		ts.Mode = *m
	}
	ts.InputFirst = d.Execution.InputFirst
	return ts, nil
}
