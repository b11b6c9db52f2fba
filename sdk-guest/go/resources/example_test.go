//go:build !wasip1

package resources_test

import (
	"fmt"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/resources"
)

func ExampleTemplate() {
	notes := map[string]string{"today": "Buy milk"}
	resources.Template("notes://{day}", "note", func(r *resources.Request) (*resources.Result, error) {
		text, ok := notes[r.Vars["day"]]
		if !ok {
			// The host answers the client "resource not found".
			return nil, fmt.Errorf("no note for %q: %w", r.Vars["day"], resources.ErrNotFound)
		}
		return resources.Text(text), nil
	}).MimeType("text/plain")

	// In a plugin the host reads the resource; in a test, Invoke does.
	fmt.Println(string(resources.Invoke("notes://today").Output))
	fmt.Println(resources.Invoke("notes://someday").Err)
	// Output:
	// {"contents":[{"uri":"notes://today","mimeType":"text/plain","text":"Buy milk"}]}
	// no note for "someday": not found
}

func ExampleBlob() {
	resources.Resource("img://dot", "dot", func(*resources.Request) (*resources.Result, error) {
		return resources.Blob([]byte{0x89, 'P', 'N', 'G'}), nil
	}).MimeType("image/png")

	fmt.Println(string(resources.Invoke("img://dot").Output))
	// Output: {"contents":[{"uri":"img://dot","mimeType":"image/png","blob":"iVBORw=="}]}
}
