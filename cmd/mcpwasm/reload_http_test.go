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
	dir := t.TempDir()
	fixture.Copy(t, "echo", filepath.Join(dir, "echo.wasm"))
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
