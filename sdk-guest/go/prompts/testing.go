//go:build !wasip1

package prompts

import (
	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Invocation is the outcome of [Invoke]: what the host would have received
// from get_prompt.
type Invocation struct{ mcpwasm.Outcome[Result] }

// Text is the text of the messages' text blocks, joined by newlines.
func (inv Invocation) Text() string {
	return guest.JoinText(inv.Result.Messages, func(m Message) (string, bool) { return m.Content.Text, m.Content.Type == "text" })
}

// Invoke gets a registered prompt the way the host's get_prompt would, with
// a context naming plugin "test". arguments may be nil. It is available off
// wasip1 only, for tests.
func Invoke(name string, arguments map[string]string) Invocation {
	return InvokeInput(guest.TestInput(map[string]any{"name": name, "arguments": arguments}, nil))
}

// InvokeInput runs get_prompt with a complete input envelope,
// {"request": {"name", "arguments"}, "context": Context}.
func InvokeInput(input []byte) Invocation {
	return Invocation{mcpwasm.TestOutcome[Result]("get_prompt", get, input)}
}

// List runs list_prompts: the ListPromptsResult JSON, or the message the
// host would refuse the plugin with.
func List() ([]byte, error) { return list() }
