package guestmeta

import "testing"

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
		if got := Reserved(k); got != want {
			t.Errorf("Reserved(%q) = %v, want %v", k, got, want)
		}
	}
}
