//go:build !wasip1

package mcpwasm

import (
	"encoding/json"
	"strings"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Off wasip1 there is no Extism kernel: an in-process stand-in replaces it
// so that handlers can be tested with plain `go test`. Nothing here is in a
// plugin. The resources, prompts and completion packages have their own
// Invoke helpers on the same stand-in.

// Notification is a host function call a handler made during a test
// invocation: Function is its name ("notify_progress",
// "notify_logging_message", "notify_resource_updated",
// "notify_tool_list_changed", "notify_resource_list_changed",
// "notify_prompt_list_changed" or "notify_url_elicitation_completed") and
// Payload its JSON argument, nil for the list_changed functions, which take
// none.
type Notification struct {
	Function string
	Payload  json.RawMessage
}

// Invocation is the outcome of [Invoke]: what the host would have received.
type Invocation struct {
	// Output is call_tool's output, the CallToolResult JSON.
	Output []byte
	// Result is Output decoded.
	Result Result
	// Notifications are the notifications sent, in order.
	Notifications []Notification
	// Err is set when call_tool failed outright (error_set and a non-zero
	// return), which only a malformed input causes.
	Err error
}

// Text is the text of the result's text blocks, joined by newlines.
func (inv Invocation) Text() string {
	var parts []string
	for _, c := range inv.Result.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Invoke calls a registered tool the way the host's call_tool would, with
// arguments as a JSON object ("" means none) and a context naming plugin
// "test". It is available off wasip1 only, for tests. The host validates
// arguments against the tool's inputSchema; Invoke does not.
func Invoke(tool, arguments string) Invocation {
	if arguments == "" {
		arguments = "{}"
	}
	in, _ := json.Marshal(map[string]any{
		"request": map[string]any{"name": tool, "arguments": json.RawMessage(arguments)},
		"context": map[string]any{"plugin": "test", "tool": tool, "deadline_ms": 5000},
	})
	return InvokeInput(in)
}

// InvokeInput runs call_tool with a complete input envelope,
// {"request": CallToolParams, "context": Context}.
func InvokeInput(input []byte) Invocation {
	var inv Invocation
	inv.Output, inv.Err = guest.Invoke("call_tool", callTool, input, &inv.Result)
	inv.Notifications = TestNotifications()
	return inv
}

// TestNotifications returns the notifications sent since the last test
// invocation began (Invoke here, or those of the resources, prompts and
// completion packages). The invocations report them already; this is for
// helpers built on top of them.
func TestNotifications() []Notification {
	var out []Notification
	for _, n := range guest.Test.Notes {
		out = append(out, Notification{n.Function, n.Payload})
	}
	return out
}

// ListTools runs list_tools: the ListToolsResult JSON, or the message the
// host would refuse the plugin with. It also runs the checks of the
// resources, prompts and completion packages, as list_tools does.
func ListTools() ([]byte, error) { return listToolsJSON() }

// SetTestConfig sets what [Config] returns in tests; nil clears it.
func SetTestConfig(config map[string]string) { guest.Test.Config = config }

// SetTestRequests sets how CreateMessage, Elicit and ListRoots are answered
// in tests: fn is the host function name ("create_message",
// "create_elicitation", "list_roots"). Without it they answer an error, as a
// client without the capability would.
func SetTestRequests(answer func(fn string, params json.RawMessage) json.RawMessage) {
	guest.Test.Answer = answer
}
