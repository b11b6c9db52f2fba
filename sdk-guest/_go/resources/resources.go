// Package resources lets an mcpwasm plugin serve MCP resources and resource
// templates (ABI.md §5): it registers them, and provides the module's
// list_resources, list_resource_templates and read_resource exports.
//
// Those exports exist only in plugins that import this package, so a plugin
// without resources does not advertise the resources capability.
//
//	func init() {
//		resources.Resource("notes://today", "today", func(r *resources.Request) (*resources.Result, error) {
//			return resources.Text("Buy milk"), nil
//		}).MimeType("text/plain")
//
//		resources.Template("notes://day/{date}", "day", func(r *resources.Request) (*resources.Result, error) {
//			note, ok := notes[r.Vars["date"]]
//			if !ok {
//				return nil, fmt.Errorf("no note for %s: %w", r.Vars["date"], resources.ErrNotFound)
//			}
//			return resources.Text(note), nil
//		})
//	}
package resources

import (
	"encoding/base64"
	"encoding/json"
	"errors"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Handler reads one resource. Its error fails the read: the client gets a
// JSON-RPC error, "resource not found" if the message contains "not found"
// (wrap [ErrNotFound]), otherwise an internal error carrying the message.
type Handler func(r *Request) (*Result, error)

// ErrNotFound is the error to return, or wrap, when the URI names nothing:
// the host then answers the client's resources/read with resource not found.
var ErrNotFound = errors.New("not found")

// Request is one resources/read, as the handler sees it. The embedded
// [mcpwasm.Host] carries the call's context and the host functions.
type Request struct {
	// URI is the URI read.
	URI string
	// Template is the URI template that matched, "" for a concrete resource.
	Template string
	// Vars are the template's variables, percent-decoded; nil for a
	// concrete resource. A variable the URI leaves out is absent.
	Vars map[string]string

	mcpwasm.Host
}

// Result is an MCP ReadResourceResult.
type Result struct {
	Contents []Contents     `json:"contents"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// Contents is one item of a Result: text, or binary data when Blob is not
// nil. The SDK fills in an empty URI with the URI read, and an empty
// MimeType with the one the resource or template declared.
type Contents struct {
	URI      string
	MimeType string
	Text     string
	Blob     []byte
	Meta     map[string]any
}

// MarshalJSON encodes c as MCP TextResourceContents, or
// BlobResourceContents (base64) when Blob is set.
func (c Contents) MarshalJSON() ([]byte, error) {
	type item struct {
		URI      string         `json:"uri"`
		MimeType string         `json:"mimeType,omitempty"`
		Text     *string        `json:"text,omitempty"`
		Blob     *string        `json:"blob,omitempty"`
		Meta     map[string]any `json:"_meta,omitempty"`
	}
	it := item{URI: c.URI, MimeType: c.MimeType, Meta: c.Meta}
	if c.Blob != nil {
		b := base64.StdEncoding.EncodeToString(c.Blob)
		it.Blob = &b
	} else {
		it.Text = &c.Text
	}
	return guest.Marshal(it)
}

// UnmarshalJSON decodes MCP TextResourceContents or BlobResourceContents.
func (c *Contents) UnmarshalJSON(b []byte) error {
	var it struct {
		URI      string         `json:"uri"`
		MimeType string         `json:"mimeType"`
		Text     string         `json:"text"`
		Blob     *string        `json:"blob"`
		Meta     map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(b, &it); err != nil {
		return err
	}
	*c = Contents{URI: it.URI, MimeType: it.MimeType, Text: it.Text, Meta: it.Meta}
	if it.Blob != nil {
		data, err := base64.StdEncoding.DecodeString(*it.Blob)
		if err != nil {
			return errors.New("blob is not base64: " + err.Error())
		}
		c.Blob = data
	}
	return nil
}

// Text answers one text content.
func Text(text string) *Result { return &Result{Contents: []Contents{{Text: text}}} }

// Blob answers one binary content (data is raw; it travels base64-encoded).
func Blob(data []byte) *Result {
	if data == nil {
		data = []byte{}
	}
	return &Result{Contents: []Contents{{Blob: data}}}
}

// Add appends contents and returns r.
func (r *Result) Add(contents ...Contents) *Result {
	r.Contents = append(r.Contents, contents...)
	return r
}
