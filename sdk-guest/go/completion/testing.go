//go:build !wasip1

package completion

import (
	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Invocation is the outcome of [Invoke]: what the host would have received
// from complete.
type Invocation struct {
	// Output is complete's output, the CompleteResult JSON; nil when the
	// request failed.
	Output []byte
	// Values, Total and HasMore are Output's completion, decoded.
	Values  []string
	Total   int
	HasMore bool
	// Notifications are the notifications the handler sent, in order.
	Notifications []mcpwasm.Notification
	// Err is the failure the host would answer the client with, as a
	// JSON-RPC error.
	Err error
}

// Invoke completes the argument (or template variable) of ref for the typed
// value, the way the host's complete would, with a context naming plugin
// "test". It is available off wasip1 only, for tests.
func Invoke(ref Ref, argument, value string) Invocation {
	request := map[string]any{"ref": ref, "argument": map[string]string{"name": argument, "value": value}}
	return InvokeInput(guest.TestInput(request, nil))
}

// InvokeInput runs complete with a complete input envelope,
// {"request": CompleteRequest params, "context": Context}.
func InvokeInput(input []byte) Invocation {
	type completed struct {
		Completion struct {
			Values  []string `json:"values"`
			Total   int      `json:"total"`
			HasMore bool     `json:"hasMore"`
		} `json:"completion"`
	}
	o := mcpwasm.TestOutcome[completed]("complete", complete, input)
	c := o.Result.Completion
	return Invocation{Output: o.Output, Values: c.Values, Total: c.Total, HasMore: c.HasMore, Notifications: o.Notifications, Err: o.Err}
}
