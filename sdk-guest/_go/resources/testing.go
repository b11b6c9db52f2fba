//go:build !wasip1

package resources

import (
	"encoding/json"
	"strings"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Invocation is the outcome of [Invoke]: what the host would have received
// from read_resource.
type Invocation struct {
	// Output is read_resource's output, the ReadResourceResult JSON; nil
	// when the read failed.
	Output []byte
	// Result is Output decoded.
	Result Result
	// Notifications are the notifications the handler sent, in order.
	Notifications []mcpwasm.Notification
	// Err is the failure the host would answer the client with, as a
	// JSON-RPC error: resource not found if its message contains
	// "not found".
	Err error
}

// Text is the text of the result's text contents, joined by newlines.
func (inv Invocation) Text() string {
	var parts []string
	for _, c := range inv.Result.Contents {
		if c.Blob == nil {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Invoke reads uri the way the host's read_resource would, with a context
// naming plugin "test". It is available off wasip1 only, for tests.
func Invoke(uri string) Invocation {
	in, _ := json.Marshal(map[string]any{
		"request": map[string]any{"uri": uri},
		"context": map[string]any{"plugin": "test", "deadline_ms": 5000},
	})
	return InvokeInput(in)
}

// InvokeInput runs read_resource with a complete input envelope,
// {"request": {"uri"}, "context": Context}.
func InvokeInput(input []byte) Invocation {
	var inv Invocation
	inv.Output, inv.Err = guest.Invoke("read_resource", read, input, &inv.Result)
	inv.Notifications = mcpwasm.TestNotifications()
	return inv
}

// List runs list_resources: the ListResourcesResult JSON, or the message
// the host would refuse the plugin with.
func List() ([]byte, error) { return listResources() }

// ListTemplates runs list_resource_templates: the
// ListResourceTemplatesResult JSON, or the message the host would refuse
// the plugin with.
func ListTemplates() ([]byte, error) { return listTemplates() }
