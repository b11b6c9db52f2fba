package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestColdLoadSpinningList: on a cold load (its declarations are never
// cached: they never load), a plugin whose list_tools spins is stopped at
// its time limit although its reads share one instance (host/plugin,
// listing.go), and reported by name; the list a client gets is answered,
// with the other plugin's tool and none of the spinning plugin's prompts.
// A read with no deadline of its own would hold the load until the load
// deadline (a minute here) and be reported as late instead.
func TestColdLoadSpinningList(t *testing.T) {
	dir := fixture.Folder(t, "echo", "spin_list")
	cfg := filepath.Join(dir, "mcpwasm.toml")
	text := "[[plugin]]\nname = \"spinner\"\npath = \"spin_list.wasm\"\ntimeout = \"300ms\"\n\n[[plugin]]\nname = \"echo\"\npath = \"echo.wasm\"\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	h := serveInProcess(t, cfg)
	if got := h.tools(); got != "echo_echo" {
		t.Fatalf("tools = %q\nlog:\n%s", got, h.logs)
	}
	line := h.logLine("plugin not loaded", "spinner", "list_tools failed")
	if !strings.Contains(line, "time limit") {
		t.Fatalf("the spinning list is not reported as stopped at its time limit: %q\nlog:\n%s", line, h.logs)
	}
	prompts, err := h.cs.ListPrompts(context.Background(), &mcp.ListPromptsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 0 {
		t.Fatalf("prompts of a plugin that did not load: %+v", prompts.Prompts)
	}
}
