//go:build !wasip1

package mcpwasm

import (
	"encoding/json"
	"errors"
	"strings"
)

// Off wasip1 there is no Extism kernel: this file stands in for it so that
// handlers can be tested with plain `go test`. Nothing here is in a plugin.

var testHost struct {
	err      string
	config   map[string]string
	notes    []Notification
	requests func(fn string, params json.RawMessage) json.RawMessage
}

// Notification is a host function call a tool made during [Invoke]:
// Function is "notify_progress" or "notify_logging_message" and Payload its
// JSON argument.
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
	// Notifications are the progress and log notifications sent, in order.
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
	testHost.err, testHost.notes = "", nil
	out, err := callTool(input)
	inv := Invocation{Output: out, Err: err, Notifications: testHost.notes}
	if err == nil {
		if testHost.err != "" { // what the host would see after a trap, in TinyGo
			inv.Err = errors.New(testHost.err)
		}
		if jerr := json.Unmarshal(out, &inv.Result); jerr != nil && inv.Err == nil {
			inv.Err = errors.New("call_tool answered invalid JSON: " + jerr.Error())
		}
	}
	return inv
}

// ListTools runs list_tools: the ListToolsResult JSON, or the message the
// host would refuse the plugin with.
func ListTools() ([]byte, error) { return listToolsJSON() }

// SetTestConfig sets what [Config] returns in tests; nil clears it.
func SetTestConfig(config map[string]string) { testHost.config = config }

// SetTestRequests sets how CreateMessage, Elicit and ListRoots are answered
// in tests: fn is the host function name ("create_message",
// "create_elicitation", "list_roots"). Without it they answer an error, as a
// client without the capability would.
func SetTestRequests(answer func(fn string, params json.RawMessage) json.RawMessage) {
	testHost.requests = answer
}

func hostSetError(msg string) { testHost.err = msg }

func hostClearError() { testHost.err = "" }

func hostConfig(key string) (string, bool) {
	v, ok := testHost.config[key]
	return v, ok
}

func hostNotify(fn string, payload []byte) {
	testHost.notes = append(testHost.notes, Notification{fn, json.RawMessage(payload)})
}

func hostCall(fn string, payload []byte) []byte {
	if testHost.requests == nil {
		return []byte(`{"error":{"message":"the client does not support ` + fn + `"}}`)
	}
	return testHost.requests(fn, payload)
}
