// Command conformance is the Wasm plugin mcpwasm serves to the official MCP
// conformance suite (@modelcontextprotocol/conformance 0.1.16, and the
// 0.2.0 alpha's 2026-07-28 scenarios: mrtr.go): the tools, resources,
// prompts and completions its server scenarios call by name.
//
// It is an Extism plugin written against mcpwasm's ABI (abi/ABI.md) with the
// standard library only, built as a WASI reactor:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
//
// Every export reads the envelope {"request": <MCP params>, "context": {...}}
// and writes an MCP result object.
package main

import (
	"encoding/json"
	"fmt"
)

func main() {}

// envelope is every export's input (ABI.md §2 and §5).
type envelope struct {
	Request json.RawMessage `json:"request"`
	Context callContext     `json:"context"`
}

// callContext is the part of the host's context this plugin reads.
type callContext struct {
	Meta struct {
		ProgressToken json.RawMessage `json:"progressToken,omitempty"`
	} `json:"_meta"`
	ClientCapabilities map[string]json.RawMessage `json:"client_capabilities"`
}

// content is an MCP content block: text, image, audio or an embedded
// resource, depending on Type.
type content struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	Data     string            `json:"data,omitempty"`
	MimeType string            `json:"mimeType,omitempty"`
	Resource *resourceContents `json:"resource,omitempty"`
}

// resourceContents is one item of a resource's contents: text, or a base64
// blob.
type resourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// MarshalJSON keeps a text block's text even when it is empty: MCP
// requires the field.
func (c content) MarshalJSON() ([]byte, error) {
	if c.Type == "text" {
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{c.Type, c.Text})
	}
	type plain content // without this method
	return json.Marshal(plain(c))
}

func text(s string) content { return content{Type: "text", Text: s} }

func image(b64, mime string) content { return content{Type: "image", Data: b64, MimeType: mime} }

func audio(b64, mime string) content { return content{Type: "audio", Data: b64, MimeType: mime} }

func embedded(uri, mime, s string) content {
	return content{Type: "resource", Resource: &resourceContents{URI: uri, MimeType: mime, Text: s}}
}

// Test media, base64.
const (
	// pngBase64 is a 1×1 red PNG (the conformance suite's own example image).
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	// wavBase64 is a complete 52-byte WAV file: PCM, mono, 8 kHz, 16-bit,
	// four samples of silence.
	wavBase64 = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQgAAAAAAAAAAAAAAA=="
)

// serve runs one export: it decodes the envelope, hands the request to h
// and writes h's result as JSON. An error from h fails the export with
// error_set, which the host turns into an isError result (tools) or a
// JSON-RPC error (resources, prompts, completion).
func serve(h func(req json.RawMessage, ctx callContext) (any, error)) int32 {
	var env envelope
	if in := readInput(); len(in) > 0 {
		if err := json.Unmarshal(in, &env); err != nil {
			return fail("conformance: invalid input envelope: " + err.Error())
		}
	}
	if len(env.Request) == 0 || string(env.Request) == "null" {
		env.Request = json.RawMessage("{}")
	}
	res, err := h(env.Request, env.Context)
	if err != nil {
		return fail(err.Error())
	}
	out, err := json.Marshal(res)
	if err != nil {
		return fail("conformance: cannot encode the result: " + err.Error())
	}
	return setOutput(out)
}

// decode unmarshals a request into v, naming what failed.
func decode(req json.RawMessage, v any) error {
	if err := json.Unmarshal(req, v); err != nil {
		return fmt.Errorf("conformance: invalid request: %v", err)
	}
	return nil
}

// listed is the handler of a list export that answers {key: items}.
func listed(key string, items any) func(json.RawMessage, callContext) (any, error) {
	return func(json.RawMessage, callContext) (any, error) { return map[string]any{key: items}, nil }
}

//go:wasmexport mcpwasm_abi_version
func exportABIVersion() int32 { return 1 }

//go:wasmexport list_tools
func exportListTools() int32 { return serve(listTools) }

//go:wasmexport call_tool
func exportCallTool() int32 { return serve(callTool) }

//go:wasmexport list_resources
func exportListResources() int32 { return serve(listed("resources", resources)) }

//go:wasmexport list_resource_templates
func exportListResourceTemplates() int32 { return serve(listed("resourceTemplates", templates)) }

//go:wasmexport read_resource
func exportReadResource() int32 { return serve(readResource) }

//go:wasmexport list_prompts
func exportListPrompts() int32 { return serve(listed("prompts", prompts)) }

//go:wasmexport get_prompt
func exportGetPrompt() int32 { return serve(getPrompt) }

//go:wasmexport complete
func exportComplete() int32 { return serve(complete) }
