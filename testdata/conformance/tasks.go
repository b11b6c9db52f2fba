package main

// The task fixtures of the 2026-07-28 tasks-* scenarios (SEP-2663, the
// io.modelcontextprotocol/tasks extension): tools that declare task
// support in their "execution" object (ABI.md §2), and greet, a plain
// tool. The host decides when a call becomes a task; the guest just runs.

import (
	"encoding/json"
	"fmt"
	"time"
)

// execution is a tool declaration's task support (ABI.md §2).
type execution struct {
	TaskSupport string `json:"taskSupport"`
	InputFirst  bool   `json:"inputFirst,omitempty"`
}

// taskSupport is the execution object of the tools that have one, by name.
var taskSupport = map[string]execution{
	"slow_compute":        {TaskSupport: "optional"},
	"failing_job":         {TaskSupport: "required"},
	"protocol_error_job":  {TaskSupport: "optional"},
	"confirm_delete":      {TaskSupport: "optional"},
	"multi_input":         {TaskSupport: "optional"},
	"test_tool_with_task": {TaskSupport: "required", InputFirst: true},
}

func init() { tools = append(tools, taskTools...) }

const confirmFlagSchema = `{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`

var taskTools = []tool{
	{"greet", "Says hello (a plain tool: never a task)", json.RawMessage(`{
		"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}`),
		func(args json.RawMessage, _ callContext) callToolResult {
			var a struct{ Name string }
			json.Unmarshal(args, &a)
			return ok(text("Hello, " + a.Name + "!"))
		}},
	{"slow_compute", "Sleeps the given seconds, then answers (a task when the client supports tasks)", json.RawMessage(`{
		"type": "object",
		"properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 3600}, "label": {"type": "string"}}}`),
		func(args json.RawMessage, _ callContext) callToolResult {
			var a struct {
				Seconds float64
				Label   string
			}
			json.Unmarshal(args, &a)
			time.Sleep(time.Duration(a.Seconds * float64(time.Second)))
			return ok(text(fmt.Sprintf("computed %q after %gs", a.Label, a.Seconds)))
		}},
	{"failing_job", "Fails after a second with a tool error (requires tasks)", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			time.Sleep(time.Second)
			return toolError("failing_job failed, as it always does")
		}},
	{"protocol_error_job", "Panics: the task fails rather than completing", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			time.Sleep(100 * time.Millisecond)
			panic("protocol_error_job: deliberate crash")
		}},
	{"confirm_delete", "Asks the client to confirm, then reports the file deleted", json.RawMessage(`{
		"type": "object", "properties": {"filename": {"type": "string"}}, "required": ["filename"]}`),
		func(args json.RawMessage, _ callContext) callToolResult {
			var a struct{ Filename string }
			json.Unmarshal(args, &a)
			return ask(map[string]inputRequest{"confirm": elicitRequest("Delete "+a.Filename+"?", confirmFlagSchema)},
				func(ans map[string]json.RawMessage) callToolResult {
					if elicited(ans["confirm"], "confirm") != "true" {
						return ok(text("kept " + a.Filename))
					}
					return ok(text("deleted " + a.Filename))
				})
		}},
	{"multi_input", "Asks for a name and a confirmation at once", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ask(map[string]inputRequest{
				"name":    elicitRequest("Your name?", nameSchema),
				"confirm": elicitRequest("Proceed?", confirmFlagSchema),
			}, func(ans map[string]json.RawMessage) callToolResult {
				return ok(text(fmt.Sprintf("name %s, confirmed %s", elicited(ans["name"], "name"), elicited(ans["confirm"], "confirm"))))
			})
		}},
	{"test_tool_with_task", "Asks for a name by multi round-trip, then works on it as a task", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ask(map[string]inputRequest{"user_name": elicitRequest("What is your name?", nameSchema)},
				func(ans map[string]json.RawMessage) callToolResult {
					time.Sleep(500 * time.Millisecond)
					return ok(text("Hello, " + elicited(ans["user_name"], "name") + ", from a task"))
				})
		}},
}
