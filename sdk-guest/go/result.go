package mcpwasm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Result is an MCP CallToolResult.
type Result struct {
	Content []Content `json:"content"`
	// StructuredContent, if set, must encode as a JSON object (MCP requires
	// it), matching the tool's OutputSchema if it declared one.
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError,omitempty"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

// Content is one MCP content block. Type is "text" (Text), "image" or "audio"
// (Data, base64, and MimeType), "resource_link" (URI, Name, MimeType) or
// "resource" (Resource).
type Content struct {
	Type        string          `json:"type"`
	Text        string          `json:"text,omitempty"`
	Data        string          `json:"data,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	URI         string          `json:"uri,omitempty"`
	Name        string          `json:"name,omitempty"`
	Resource    json.RawMessage `json:"resource,omitempty"`
	Annotations map[string]any  `json:"annotations,omitempty"`
	Meta        map[string]any  `json:"_meta,omitempty"`
}

// MarshalJSON keeps "text" on text blocks even when it is empty: MCP requires
// the field.
func (c Content) MarshalJSON() ([]byte, error) {
	type plain Content
	if c.Type != "text" || c.Text != "" {
		return marshal(plain(c))
	}
	return marshal(struct {
		Type        string         `json:"type"`
		Text        string         `json:"text"`
		Annotations map[string]any `json:"annotations,omitempty"`
		Meta        map[string]any `json:"_meta,omitempty"`
	}{c.Type, "", c.Annotations, c.Meta})
}

// TextContent is a text content block.
func TextContent(s string) Content { return Content{Type: "text", Text: s} }

// ImageContent is an image content block; data is the raw image, which the
// block carries base64-encoded.
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: "image", Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType}
}

// Text answers one text block.
func Text(s string) *Result { return &Result{Content: []Content{TextContent(s)}} }

// Image answers one image block (data is the raw image, e.g. PNG bytes).
func Image(data []byte, mimeType string) *Result {
	return &Result{Content: []Content{ImageContent(data, mimeType)}}
}

// Error answers an isError result with msg as its text. Returning an error
// from a handler does the same; use Error to add more content or _meta first.
func Error(msg string) *Result {
	return &Result{Content: []Content{TextContent(msg)}, IsError: true}
}

// marshal is json.Marshal without HTML escaping: "<" stays "<" in the text
// a model reads, instead of becoming "\u003c".
func marshal(v any) ([]byte, error) { return guest.Marshal(v) }

// JSON answers v encoded as JSON: as structuredContent when it encodes as an
// object, and always as a text block holding the same JSON, for clients that
// read only text. If v cannot be encoded the result is an isError result
// saying why.
func JSON(v any) *Result {
	b, err := marshal(v)
	if err != nil {
		return Error("cannot encode the result as JSON: " + err.Error())
	}
	r := &Result{Content: []Content{TextContent(string(b))}}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		r.StructuredContent = json.RawMessage(b)
	}
	return r
}

// Add appends content blocks and returns r.
func (r *Result) Add(blocks ...Content) *Result {
	r.Content = append(r.Content, blocks...)
	return r
}

// AddText appends a text block and returns r.
func (r *Result) AddText(s string) *Result { return r.Add(TextContent(s)) }

// WithStructured sets structuredContent (which must encode as a JSON
// object) and returns r. Text content is left as it is.
func (r *Result) WithStructured(v any) *Result {
	r.StructuredContent = v
	return r
}

// WithMeta sets one _meta key and returns r.
func (r *Result) WithMeta(key string, value any) *Result {
	if r.Meta == nil {
		r.Meta = map[string]any{}
	}
	r.Meta[key] = value
	return r
}

// encodeResult is the call_tool output for r. A result that cannot be
// encoded becomes an isError result saying so.
func encodeResult(r *Result) []byte {
	if r == nil {
		r = &Result{}
	}
	if r.Content == nil {
		r.Content = []Content{}
	}
	if b, ok := encodeResultFast(r); ok {
		return b
	}
	b, err := marshal(r)
	if err != nil {
		b, _ = marshal(Error("the tool's result could not be encoded as JSON: " + err.Error()))
	}
	return b
}
