package lifecycle

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refusedEntry loads the echo fixture as plugin name and gives it an entry
// go-sdk refuses (a header annotation on an object property) although
// nothing in the registry checks it here: the safety net's case.
func refusedEntry(t *testing.T, c *Catalog, name string) *registry.Entry {
	t.Helper()
	data, err := os.ReadFile(fixture.Path(t, "echo"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.rt.Load(context.Background(), plugin.Config{Name: name, Source: name + ".wasm", Wasm: data})
	if err != nil {
		t.Fatal(err)
	}
	bad := &registry.Tool{Declared: "echo", Plugin: p, Def: &mcp.Tool{Name: name + "_echo",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"X-O"}}}`)}}
	return &registry.Entry{Plugin: p, Tools: []*registry.Tool{bad}}
}

// TestSwapInUndoesRefusal: when go-sdk refuses a new version the registry
// accepted, the catalog puts the previous version back in the registry and
// publishes it again: the old tool still lists and answers, the registry
// holds the old plugin, and the refusal is the error. A refused new plugin
// (no previous version) leaves nothing behind.
func TestSwapInUndoesRefusal(t *testing.T) {
	dir := t.TempDir()
	fixture.Copy(t, "echo", filepath.Join(dir, "tool.wasm"))
	h := serveInProcess(t, "", dir)
	old := h.c.reg.Plugins()[0]

	e := refusedEntry(t, h.c, "tool")
	if _, err := h.c.swapIn(old, e, registry.AddOptions{}); err == nil || !strings.Contains(err.Error(), "x-mcp-header") {
		t.Fatalf("swapIn of a refused version = %v", err)
	}
	h.wantTools("after the refused replacement", "tool_echo")
	if res, out := h.call("tool_echo"); res.IsError {
		t.Fatalf("the old version no longer answers: %s", out)
	}
	if ps := h.c.reg.Plugins(); len(ps) != 1 || ps[0] != old || !h.c.reg.Served(old) {
		t.Fatalf("the registry does not serve the old version again: %d plugins", len(ps))
	}

	e = refusedEntry(t, h.c, "other")
	if _, err := h.c.swapIn(nil, e, registry.AddOptions{}); err == nil {
		t.Fatal("swapIn of a refused new plugin succeeded")
	}
	if ps := h.c.reg.Plugins(); len(ps) != 1 || ps[0] != old {
		t.Fatalf("a refused new plugin stayed in the registry: %d plugins", len(ps))
	}
	h.wantTools("after the refused addition", "tool_echo")
}
