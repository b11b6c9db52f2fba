package capscache

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCapsKeyBound: capabilities whose key would pass capsKeyBytes are
// not keyed (so not cached); smaller ones are.
func TestCapsKeyBound(t *testing.T) {
	small := map[string]any{"experimental": map[string]any{"x": strings.Repeat("a", capsKeyBytes/2)}}
	if _, fits := capsKey(nil, small); !fits {
		t.Fatal("a small value is not keyed")
	}
	for _, big := range []any{
		map[string]any{"experimental": map[string]any{"x": strings.Repeat("a", capsKeyBytes)}},
		map[string]any{"experimental": map[string]any{"x": make([]any, capsKeyBytes)}},
		map[string]any{"experimental": map[string]any{strings.Repeat("k", capsKeyBytes): 1}},
	} {
		if _, fits := capsKey(nil, big); fits {
			t.Errorf("a value past %d bytes is keyed", capsKeyBytes)
		}
	}
	if _, fits := capsKey(nil, map[string]any{"x": int64(1)}); fits {
		t.Error("a value of a type JSON does not decode to is keyed")
	}
}

// TestCapsCacheAbsentParams: a request without params (and without a
// session) has no capabilities, as go-sdk says, and does not panic.
func TestCapsCacheAbsentParams(t *testing.T) {
	var c Cache
	r := &mcp.ServerRequest[*mcp.CallToolParamsRaw]{}
	if want := r.ClientCapabilities(); want != nil {
		t.Fatalf("go-sdk says %v", want)
	}
	if caps, raw := c.Get(r); caps != nil || raw != nil {
		t.Fatalf("got %v %s, want none", caps, raw)
	}
}
