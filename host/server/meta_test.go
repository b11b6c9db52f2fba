package server

import (
	"fmt"
	"strings"
	"testing"
)

// Every prefix the specification reserves is recognised, wherever the
// "mcp" or "modelcontextprotocol" label sits; others are not.
func TestReservedMetaKey(t *testing.T) {
	for k, want := range map[string]bool{
		"io.modelcontextprotocol/related-task": true,
		"modelcontextprotocol.io/x":            true,
		"mcp.dev/x":                            true,
		"api.modelcontextprotocol.org/x":       true,
		"tools.mcp.com/x":                      true,
		"dev.mcp/x":                            true,
		"com.example/x":                        false,
		"example.mcp/x":                        true,
		"mcp/x":                                true,
		"com.example.mcpish/x":                 false,
		"progressToken":                        false,
	} {
		if got := reservedMetaKey(k); got != want {
			t.Errorf("reservedMetaKey(%q) = %v, want %v", k, got, want)
		}
	}
}

// An object with many members is checked in linear time: 300,000 members
// took minutes when each was compared with every earlier one.
func TestParseObjectManyMembers(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 300_000; i++ {
		fmt.Fprintf(&b, "%q:%d,", fmt.Sprint("k", i), i)
	}
	b.WriteString(`"k0":1}`)
	if _, err := parseObject([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("want the repeated member reported, got %v", err)
	}
}
