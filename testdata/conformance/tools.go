package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// tool is one entry of tools/list plus the function that runs it.
type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`

	run func(args json.RawMessage, ctx callContext) callToolResult
}

type callToolResult struct {
	Content []content `json:"content"`
	IsError bool      `json:"isError,omitempty"`
}

func ok(c ...content) callToolResult { return callToolResult{Content: c} }

func toolError(msg string) callToolResult {
	return callToolResult{Content: []content{text(msg)}, IsError: true}
}

const noArgs = `{"type":"object","properties":{}}`

// tools are the conformance suite's fixture tools, in tools/list order.
var tools = []tool{
	{"test_simple_text", "Tests simple text content response", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ok(text("This is a simple text response for testing."))
		}},
	{"test_image_content", "Tests image content response", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ok(image(pngBase64, "image/png"))
		}},
	{"test_audio_content", "Tests audio content response", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ok(audio(wavBase64, "audio/wav"))
		}},
	{"test_embedded_resource", "Tests embedded resource content response", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ok(embedded("test://embedded-resource", "text/plain", "This is an embedded resource"))
		}},
	{"test_multiple_content_types", "Tests response with multiple content types (text, image, resource)", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ok(
				text("This is text content"),
				image(pngBase64, "image/png"),
				embedded("test://embedded-in-multiple", "text/plain", "This is an embedded resource"),
			)
		}},
	{"test_tool_with_logging", "Tests tool that emits log messages during execution", json.RawMessage(noArgs), runWithLogging},
	{"test_tool_with_progress", "Tests tool that reports progress notifications", json.RawMessage(noArgs), runWithProgress},
	{"test_error_handling", "Tests error response handling", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return toolError("This tool intentionally returns an error for testing")
		}},
	{"test_sampling", "Tests server-initiated sampling (LLM completion request)", json.RawMessage(`{
		"type": "object",
		"properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
		"required": ["prompt"]
	}`), runSampling},
	{"test_elicitation", "Tests server-initiated elicitation (user input request)", json.RawMessage(`{
		"type": "object",
		"properties": {"message": {"type": "string", "description": "The message to show the user"}},
		"required": ["message"]
	}`), runElicitation},
	{"test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return elicit("Test defaults for primitives", defaultsSchema, "Elicitation completed")
		}},
	{"test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return elicit("Test enum schemas", enumsSchema, "Elicitation completed")
		}},
	{"json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)",
		json.RawMessage(schema202012),
		func(args json.RawMessage, _ callContext) callToolResult {
			return ok(text("JSON Schema 2020-12 tool called with: " + string(args)))
		}},
}

// schema202012 uses the 2020-12 vocabulary the json-schema-2020-12
// scenario expects to survive tools/list verbatim: $schema, $defs (with
// $anchor), $ref, allOf/anyOf, if/then/else and additionalProperties.
const schema202012 = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`

// defaultsSchema is the SEP-1034 requested schema: a default for each
// primitive type and for an enum.
const defaultsSchema = `{
	"type": "object",
	"properties": {
		"name": {"type": "string", "description": "User name", "default": "John Doe"},
		"age": {"type": "integer", "description": "User age", "default": 30},
		"score": {"type": "number", "description": "User score", "default": 95.5},
		"status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
		"verified": {"type": "boolean", "description": "Verification status", "default": true}
	}
}`

// enumsSchema is the SEP-1330 requested schema: the five enum variants.
// The titled multi-select's items carry anyOf and no type, as in the MCP
// schema (TitledMultiSelectEnumSchema); go-sdk rejects items with both.
const enumsSchema = `{
	"type": "object",
	"properties": {
		"untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
		"titledSingle": {"type": "string", "oneOf": [
			{"const": "value1", "title": "First Option"},
			{"const": "value2", "title": "Second Option"},
			{"const": "value3", "title": "Third Option"}
		]},
		"legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
		"untitledMulti": {"type": "array", "minItems": 1, "maxItems": 3,
			"items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
		"titledMulti": {"type": "array", "minItems": 1, "maxItems": 3,
			"items": {"anyOf": [
				{"const": "value1", "title": "First Choice"},
				{"const": "value2", "title": "Second Choice"},
				{"const": "value3", "title": "Third Choice"}
			]}}
	}
}`

func listTools(json.RawMessage, callContext) (any, error) {
	out := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		if e, ok := taskSupport[t.Name]; ok { // the tool's execution object (tasks.go)
			var m map[string]json.RawMessage
			json.Unmarshal(b, &m)
			m["execution"], _ = json.Marshal(e)
			b, _ = json.Marshal(m)
		}
		out[i] = b
	}
	return struct {
		Tools []json.RawMessage `json:"tools"`
	}{out}, nil
}

func callTool(req json.RawMessage, ctx callContext) (any, error) {
	var params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := decode(req, &params); err != nil {
		return nil, err
	}
	if len(params.Arguments) == 0 || string(params.Arguments) == "null" {
		params.Arguments = json.RawMessage("{}")
	}
	for _, t := range tools {
		if t.Name == params.Name {
			return t.run(params.Arguments, ctx), nil
		}
	}
	return nil, fmt.Errorf("conformance: unknown tool %q", params.Name)
}

// step is the pause between the notifications of one call, as the
// scenarios describe (~50 ms), so that they arrive while the call runs.
const step = 50 * time.Millisecond

func runWithLogging(json.RawMessage, callContext) callToolResult {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			time.Sleep(step)
		}
		payload, _ := json.Marshal(map[string]any{"level": "info", "data": msg})
		notify(hostNotifyLoggingMessage, payload)
	}
	return ok(text("Tool with logging executed successfully"))
}

// runWithProgress reports 0, 50 and 100 of 100; the host adds the client's
// progress token. Like the reference servers, it answers with the token.
func runWithProgress(_ json.RawMessage, ctx callContext) callToolResult {
	for i, p := range []int{0, 50, 100} {
		if i > 0 {
			time.Sleep(step)
		}
		payload, _ := json.Marshal(map[string]any{
			"progress": p, "total": 100,
			"message": fmt.Sprintf("Completed step %d of 100", p),
		})
		notify(hostNotifyProgress, payload)
	}
	token := ctx.Meta.ProgressToken
	if len(token) == 0 {
		return ok(text("no progress token"))
	}
	var s string
	if json.Unmarshal(token, &s) == nil {
		return ok(text(s))
	}
	return ok(text(string(token)))
}

// hostError returns the message of a host function's {"error":{...}}
// answer, and false if the answer is a result.
func hostError(answer []byte) (string, bool) {
	var a struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		return "the host's answer is not a JSON object: " + err.Error(), true
	}
	if a.Error == nil {
		return "", false
	}
	if a.Error.Message == "" {
		return "(no message)", true
	}
	return a.Error.Message, true
}

func runSampling(args json.RawMessage, _ callContext) callToolResult {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return toolError("invalid arguments: " + err.Error())
	}
	type message struct {
		Role    string  `json:"role"`
		Content content `json:"content"`
	}
	payload, _ := json.Marshal(struct {
		Messages  []message `json:"messages"`
		MaxTokens int       `json:"maxTokens"`
	}{[]message{{"user", text(in.Prompt)}}, 100})
	answer := request(hostCreateMessage, payload)
	if msg, failed := hostError(answer); failed {
		return toolError("sampling failed: " + msg)
	}
	var res struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(answer, &res); err != nil {
		return toolError("sampling failed: " + err.Error())
	}
	return ok(text("LLM response: " + firstText(res.Content)))
}

// firstText returns the text of a CreateMessageResult's content, which is
// one content block or (since 2025-11-25) an array of them.
func firstText(raw json.RawMessage) string {
	var blocks []content
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		_ = json.Unmarshal(raw, &blocks)
	} else {
		var c content
		if json.Unmarshal(raw, &c) == nil {
			blocks = append(blocks, c)
		}
	}
	for _, c := range blocks {
		if c.Type == "text" {
			return c.Text
		}
	}
	return "(non-text response)"
}

func runElicitation(args json.RawMessage, _ callContext) callToolResult {
	var in struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return toolError("invalid arguments: " + err.Error())
	}
	return elicit(in.Message, `{
		"type": "object",
		"properties": {
			"username": {"type": "string", "description": "User's response"},
			"email": {"type": "string", "description": "User's email address"}
		},
		"required": ["username", "email"]
	}`, "User response")
}

// elicit asks the client for input with the given requested schema and
// answers with the client's action and content, after label.
func elicit(message, schema, label string) callToolResult {
	payload, _ := json.Marshal(struct {
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}{message, json.RawMessage(schema)})
	answer := request(hostCreateElicitation, payload)
	if msg, failed := hostError(answer); failed {
		return toolError("elicitation failed: " + msg)
	}
	var res struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(answer, &res); err != nil {
		return toolError("elicitation failed: " + err.Error())
	}
	if len(res.Content) == 0 {
		res.Content = json.RawMessage("null")
	}
	return ok(text(fmt.Sprintf("%s: action=%s, content=%s", label, res.Action, res.Content)))
}
