package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/host/internal/clip"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool's output reaches the client as the guest wrote it wherever that
// is sure to mean what go-sdk's decoding would make of it (RATIONALE.md,
// "The call path"): go-sdk's decoder (mcp.CallToolResult.UnmarshalJSON)
// starts every value with a 32 KiB buffer, and its result is then encoded
// again field by field, map keys sorted. The common result — text content
// and any structuredContent — takes parseCommon: structuredContent is
// kept as the guest's bytes (json.RawMessage, which go-sdk itself uses for
// typed tools' output) and each text item decoded with encoding/json.
// Everything else (other content types, fields the fast path does not
// know, nesting past go-sdk's limit, numbers past
// float64's range, bytes that are not UTF-8) takes go-sdk's decoder
// as before. TestParseResultMatchesSDK checks the two agree.

// sdkMaxDepth is go-sdk's nesting limit for what it decodes (its
// internal/json defaultMaxDepth): deeper output would fail the client.
const sdkMaxDepth = 1000

// parseResult checks that a guest's output is a CallToolResult.
func parseResult(out []byte) (*mcp.CallToolResult, *plugin.Error) {
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return nil, badOutput("empty output (a tool whose output does not fit in its memory limit produces none)")
	}
	if trimmed[0] != '{' {
		return nil, badOutput("expected a JSON object, got %q", clip.Bytes(trimmed, 80))
	}
	res, ok := parseCommon(trimmed)
	if !ok {
		var err error
		if res, err = parseWithSDK(trimmed); err != nil {
			return nil, badOutput("%v", err)
		}
	}
	if res.Content == nil && res.StructuredContent == nil {
		return nil, badOutput(`it has neither "content" nor "structuredContent"`)
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	return res, nil
}

func badOutput(format string, a ...any) *plugin.Error {
	return &plugin.Error{Category: abi.ErrBadOutput, Message: "the tool returned a malformed result: " + fmt.Sprintf(format, a...)}
}

// parseWithSDK decodes out with go-sdk's decoder.
func parseWithSDK(out []byte) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// parseCommon decodes a result of text content and structuredContent,
// keeping structuredContent as the guest's bytes. ok is false for anything
// else, and for anything it is not sure go-sdk would read the same way
// (including what go-sdk would refuse): parseWithSDK decides those.
func parseCommon(out []byte) (_ *mcp.CallToolResult, ok bool) {
	// structuredContent is passed on as bytes: bytes that are not UTF-8
	// would reach the client as they are (go-sdk's decoder replaces them).
	if !utf8.Valid(out) || !plainJSON(out, sdkMaxDepth) {
		return nil, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(out, &fields) != nil {
		return nil, false
	}
	// go-sdk reads a missing or null content as an empty one.
	res := &mcp.CallToolResult{Content: []mcp.Content{}}
	for k, v := range fields {
		switch k {
		case "content":
			if isNull(v) {
				continue
			}
			var items []map[string]json.RawMessage
			if json.Unmarshal(v, &items) != nil {
				return nil, false
			}
			res.Content = make([]mcp.Content, 0, len(items))
			for _, item := range items {
				t, ok := textItem(item)
				if !ok {
					return nil, false
				}
				res.Content = append(res.Content, t)
			}
		case "structuredContent":
			if !isNull(v) {
				res.StructuredContent = v
			}
		case "isError":
			if json.Unmarshal(v, &res.IsError) != nil {
				return nil, false
			}
		case "_meta":
			if json.Unmarshal(v, &res.Meta) != nil {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return res, true
}

// textItem reads a content item that is exactly {"type":"text","text":...}.
func textItem(item map[string]json.RawMessage) (*mcp.TextContent, bool) {
	if len(item) != 2 || string(item["type"]) != `"text"` {
		return nil, false
	}
	raw, ok := item["text"]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return nil, false
	}
	t := &mcp.TextContent{}
	if json.Unmarshal(raw, &t.Text) != nil {
		return nil, false
	}
	return t, true
}

func isNull(v json.RawMessage) bool { return string(v) == "null" }

// plainJSON reports whether the JSON text b nests objects and arrays at
// most max deep and has no number a float64 cannot hold, as go-sdk's
// decoder (and a go-sdk client) requires of what it reads.
func plainJSON(b []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > max {
				return false
			}
		case c == '}' || c == ']':
			depth--
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(b) && strings.IndexByte("0123456789+-.eE", b[j]) >= 0 {
				j++
			}
			if _, err := strconv.ParseFloat(string(b[i:j]), 64); err != nil {
				return false
			}
			i = j - 1
		}
	}
	return true
}
