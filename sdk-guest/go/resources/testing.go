//go:build !wasip1

package resources

import (
	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Invocation is the outcome of [Invoke]: what the host would have received
// from read_resource. Its Err is a resource-not-found error if its message
// contains "not found".
type Invocation struct{ mcpwasm.Outcome[Result] }

// Text is the text of the result's text contents, joined by newlines.
func (inv Invocation) Text() string {
	return guest.JoinText(inv.Result.Contents, func(c Contents) (string, bool) { return c.Text, c.Blob == nil })
}

// Invoke reads uri the way the host's read_resource would, with a context
// naming plugin "test". It is available off wasip1 only, for tests.
func Invoke(uri string) Invocation {
	return InvokeInput(guest.TestInput(map[string]any{"uri": uri}, nil))
}

// InvokeInput runs read_resource with a complete input envelope,
// {"request": {"uri"}, "context": Context}.
func InvokeInput(input []byte) Invocation {
	return Invocation{mcpwasm.TestOutcome[Result]("read_resource", read, input)}
}

// List runs list_resources: the ListResourcesResult JSON, or the message
// the host would refuse the plugin with.
func List() ([]byte, error) { return listResources() }

// ListTemplates runs list_resource_templates: the
// ListResourceTemplatesResult JSON, or the message the host would refuse
// the plugin with.
func ListTemplates() ([]byte, error) { return listTemplates() }
