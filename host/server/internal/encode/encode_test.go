package encode

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Surely vouches for a tool result only when json.Marshal encodes
// it; everything it cannot vouch for is encoded to find out.
func TestSurelyEncodable(t *testing.T) {
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	sure := []*mcp.CallToolResult{
		{Content: text("hi")},
		{Content: text("bad utf-8 \xff is replaced, not refused"), StructuredContent: json.RawMessage(`{"a":[1,2]}`)},
		{Content: []mcp.Content{}, StructuredContent: map[string]any{"a": []any{1.5, "x", nil, true}}, Meta: mcp.Meta{"k": "v"}},
	}
	unsure := []*mcp.CallToolResult{
		{StructuredContent: math.Inf(1)},
		{StructuredContent: math.NaN()},
		{Content: text("x"), Meta: mcp.Meta{"n": math.NaN()}},
		{Content: text("x"), Meta: mcp.Meta{"c": make(chan int)}},
		{Content: text("x"), StructuredContent: json.RawMessage(`{"a":`)},
		{Content: text("x"), StructuredContent: map[string]any{"deep": []any{map[string]any{"f": math.Inf(-1)}}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: math.NaN()}}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "x", Meta: mcp.Meta{"f": func() {}}}}},
		{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}},
		{Content: text("x"), StructuredContent: struct{ F float64 }{math.NaN()}},
	}
	for i, r := range sure {
		if !Surely(r) {
			t.Errorf("sure %d: not vouched for", i)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Errorf("sure %d: vouched for, but does not encode: %v", i, err)
		}
	}
	for i, r := range unsure {
		if Surely(r) {
			t.Errorf("unsure %d: vouched for %+v", i, r)
		}
	}
	if Surely(&mcp.ReadResourceResult{}) {
		t.Error("vouched for a result that is not a tool's")
	}
}
