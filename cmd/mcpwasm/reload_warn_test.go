package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestReloadWarnsOncePerReload: over stateful HTTP, sessions that never
// opened a GET stream cannot be told that a reload changed the lists.
// go-sdk logged one WARN per such session and list at every reload; now
// each reload logs one line, with the count. Three sessions, two reloads:
// two lines, each saying 3.
func TestReloadWarnsOncePerReload(t *testing.T) {
	dir := t.TempDir()
	fixture.Copy(t, "echo", filepath.Join(dir, "echo.wasm"))
	url, _, log := httpServeCmd(t, dir)
	for i := 0; i < 3; i++ {
		status, hdr, _ := post(t, url, initializeLine, nil)
		if status != 200 || hdr.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize: HTTP %d", status)
		}
		post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			map[string]string{"Mcp-Session-Id": hdr.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"})
	}
	folded := func() []string {
		var out []string
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.Contains(l, "list_changed not delivered") {
				out = append(out, l)
			}
		}
		return out
	}
	for i, name := range []string{"constant", "counter"} {
		fixture.Copy(t, name, filepath.Join(dir, name+".wasm"))
		deadline := time.Now().Add(60 * time.Second)
		for len(folded()) < i+1 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(1500 * time.Millisecond) // any line of the same reload would be written by now
	}
	lines := folded()
	if len(lines) != 2 {
		t.Fatalf("%d folded lines for 2 reloads, want 2:\n%s", len(lines), log)
	}
	for _, l := range lines {
		if !strings.Contains(l, "sessions=3 ") {
			t.Errorf("want the count of 3 sessions: %s", l)
		}
	}
	if strings.Contains(log.String(), "undelivered message") {
		t.Fatalf("per-session warnings still logged:\n%s", log)
	}
}
