//go:build !wasip1

package mcpwasm

import (
	"encoding/json"

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

// Outcome is what the host would have received from one export call in a
// test. The Invocation of this package, and those of the resources and
// prompts packages, are one with R their result type.
type Outcome[R any] struct {
	// Output is the export's output, the result JSON; nil when the call
	// failed.
	Output []byte
	// Result is Output decoded.
	Result R
	// Notifications are the notifications the handler sent, in order.
	Notifications []Notification
	// Err is the failure the host would answer the client with, as a
	// JSON-RPC error (error_set and a non-zero return). For call_tool only a
	// malformed input causes one: a tool's errors are isError results.
	Err error
}

// TestOutcome runs run, the Go function behind one of the SDK's exports
// (named export as in ABI.md), on input, and decodes its output into a
// result of type R. The Invoke helpers of this package and of the
// resources, prompts and completion packages are built on it; a plugin's
// tests call those. It is available off wasip1 only.
func TestOutcome[R any](export string, run func(input []byte) ([]byte, error), input []byte) Outcome[R] {
	var o Outcome[R]
	o.Output, o.Err = guest.Invoke(export, run, input, &o.Result)
	o.Notifications = TestNotifications()
	return o
}

// Invocation is the outcome of [Invoke]: what the host would have received
// from call_tool.
type Invocation struct{ Outcome[Result] }

// Text is the text of the result's text blocks, joined by newlines.
func (inv Invocation) Text() string {
	return guest.JoinText(inv.Result.Content, func(c Content) (string, bool) { return c.Text, c.Type == "text" })
}

// Invoke calls a registered tool the way the host's call_tool would, with
// arguments as a JSON object ("" means none) and a context naming plugin
// "test". It is available off wasip1 only, for tests. The host validates
// arguments against the tool's inputSchema; Invoke does not.
func Invoke(tool, arguments string) Invocation {
	if arguments == "" {
		arguments = "{}"
	}
	request := map[string]any{"name": tool, "arguments": json.RawMessage(arguments)}
	return InvokeInput(guest.TestInput(request, map[string]any{"tool": tool}))
}

// InvokeInput runs call_tool with a complete input envelope,
// {"request": CallToolParams, "context": Context}.
func InvokeInput(input []byte) Invocation {
	return Invocation{TestOutcome[Result]("call_tool", callTool, input)}
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
