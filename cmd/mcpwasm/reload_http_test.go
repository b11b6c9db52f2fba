package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReloadHTTP: over Streamable HTTP, a plugin dropped into the watched
// folder is announced on the session's stream (tools/list_changed) and
// served; removed, it is announced and withdrawn.
func TestReloadHTTP(t *testing.T) {
	dir := fixture.Folder(t, "echo")
	url, _, stderr := httpServeCmd(t, dir)
	changed := make(chan struct{}, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "reload-http"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	defer cs.Close()
	waitTools := func(want string) {
		t.Helper()
		got := ""
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			if got = toolNames(t, cs, stderr); got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("tools/list = %q, want %q\nstderr:\n%s", got, want, stderr)
			}
		}
	}
	waitChanged := func() {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(time.Minute):
			t.Fatalf("no tools/list_changed over HTTP within a minute\nstderr:\n%s", stderr)
		}
	}
	waitTools("echo_echo")

	fixture.Copy(t, "constant", filepath.Join(dir, "constant.wasm"))
	waitChanged()
	waitTools("constant_a,constant_b,echo_echo")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "constant_a", Arguments: map[string]any{}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "constant") {
		t.Fatalf("constant_a over HTTP after the drop: %+v, %v", res, err)
	}
	for len(changed) > 0 {
		<-changed
	}
	if err := os.Remove(filepath.Join(dir, "constant.wasm")); err != nil {
		t.Fatal(err)
	}
	waitChanged()
	waitTools("echo_echo")
}

// TestReloadWarnsOncePerReload: over stateful HTTP, sessions that never
// opened a GET stream cannot be told that a reload changed the lists.
// go-sdk logged one WARN per such session and list at every reload; now
// each reload logs one line, with the count. Three sessions, two reloads:
// two lines, each saying 3.
func TestReloadWarnsOncePerReload(t *testing.T) {
	dir := fixture.Folder(t, "echo")
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
