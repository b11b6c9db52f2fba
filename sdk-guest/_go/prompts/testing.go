//go:build !wasip1

package prompts

import (
	"encoding/json"
	"strings"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Invocation is the outcome of [Invoke]: what the host would have received
// from get_prompt.
type Invocation struct {
	// Output is get_prompt's output, the GetPromptResult JSON; nil when the
	// request failed.
	Output []byte
	// Result is Output decoded.
	Result Result
	// Notifications are the notifications the handler sent, in order.
	Notifications []mcpwasm.Notification
	// Err is the failure the host would answer the client with, as a
	// JSON-RPC error.
	Err error
}

// Text is the text of the messages' text blocks, joined by newlines.
func (inv Invocation) Text() string {
	var parts []string
	for _, m := range inv.Result.Messages {
		if m.Content.Type == "text" {
			parts = append(parts, m.Content.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Invoke gets a registered prompt the way the host's get_prompt would, with
// a context naming plugin "test". arguments may be nil. It is available off
// wasip1 only, for tests.
func Invoke(name string, arguments map[string]string) Invocation {
	in, _ := json.Marshal(map[string]any{
		"request": map[string]any{"name": name, "arguments": arguments},
		"context": map[string]any{"plugin": "test", "deadline_ms": 5000},
	})
	return InvokeInput(in)
}

// InvokeInput runs get_prompt with a complete input envelope,
// {"request": {"name", "arguments"}, "context": Context}.
func InvokeInput(input []byte) Invocation {
	var inv Invocation
	inv.Output, inv.Err = guest.Invoke("get_prompt", get, input, &inv.Result)
	inv.Notifications = mcpwasm.TestNotifications()
	return inv
}

// List runs list_prompts: the ListPromptsResult JSON, or the message the
// host would refuse the plugin with.
func List() ([]byte, error) { return list() }
