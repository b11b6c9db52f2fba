package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReloadHostileFolder: a watched folder flooded with files written
// quickly is loaded in a few coalesced reloads, not one per file (the
// client is told of the change a few times, not a hundred); a symlink
// swapped to point at another module serves that module; a plugin file
// replaced by a directory is withdrawn while the rest keeps serving.
func TestReloadHostileFolder(t *testing.T) {
	dir := fixture.Folder(t, "echo")
	// --trust off: a plugin swapped for one declaring other tools (the
	// symlink below) is what this test reloads; under the default trust
	// it would be held until approved (TestTrustReloadE2E).
	rs := startReload(t, nil, nil, dir, "--trust", "off")
	if got := rs.tools(); got != "echo_echo" {
		t.Fatalf("tools at start = %q", got)
	}
	rs.drainChanged()

	// The flood: 100 plugins written as fast as the disk takes them.
	const flood = 100
	data, err := os.ReadFile(filepath.Join(dir, "echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < flood; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.wasm", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rs.eventually(fmt.Sprintf("%d tools after the flood", flood+1), func() bool {
		return strings.Count(rs.tools(), ",")+1 == flood+1
	})
	rs.call("f099_echo")
	// Let any straggling notification arrive, then count them. One per
	// file (uncoalesced) would fill the channel (capacity 100).
	time.Sleep(time.Second)
	n := len(rs.changed)
	t.Logf("%d files -> %d list_changed notifications", flood, n)
	// A reload round loads its new versions first and swaps them in
	// together, so go-sdk folds the round into one notice per list; on a
	// loaded machine the writes may span a few debounce windows (1–3
	// notices at load average 10; 15–57 when each plugin was swapped in as
	// it loaded). One per file would be 100.
	if n == 0 || n > flood/10 {
		t.Fatalf("%d list_changed notifications for %d files: want coalesced reloads", n, flood)
	}
	for i := 0; i < flood; i++ {
		os.Remove(filepath.Join(dir, fmt.Sprintf("f%03d.wasm", i)))
	}
	rs.waitTools("echo_echo")

	// A symlink swapped to point elsewhere, atomically (rename over it).
	// The targets are below the watched folder (not served: folders are
	// not searched): under the confinement, a link out of the folder's
	// rules needs a restart (TestReloadUnderConfinement).
	other := filepath.Join(dir, "elsewhere")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	fixture.Copy(t, "echo", filepath.Join(other, "a.wasm"))
	fixture.Copy(t, "constant", filepath.Join(other, "b.wasm"))
	link := filepath.Join(dir, "link.wasm")
	if err := os.Symlink(filepath.Join(other, "a.wasm"), link); err != nil {
		t.Fatal(err)
	}
	rs.waitTools("echo_echo,link_echo")
	tmp := filepath.Join(dir, "link.tmp")
	if err := os.Symlink(filepath.Join(other, "b.wasm"), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	rs.waitTools("echo_echo,link_a,link_b")
	if _, out := rs.call("link_a"); !strings.Contains(out, `"constant"`) {
		t.Fatalf("link_a after the swap: %s", out)
	}

	// A plugin file replaced by a directory of the same name.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(link, 0o755); err != nil {
		t.Fatal(err)
	}
	rs.eventually("link_* withdrawn after link.wasm became a directory", func() bool {
		return !strings.Contains(rs.tools(), "link_")
	})
	if res, out := rs.call("echo_echo"); res.IsError {
		t.Fatalf("echo after the hostile changes: %s", out)
	}
}

// TestReloadResourcesPromptsChunked: removing a plugin that serves
// resources and prompts withdraws them with resources/list_changed and
// prompts/list_changed; writing it back in chunks (as a slow copy does)
// serves it again, whole, with both notifications again.
func TestReloadResourcesPromptsChunked(t *testing.T) {
	dir := fixture.Folder(t, "echo")
	conf := filepath.Join(dir, "conformance.wasm")
	fixture.Copy(t, "conformance", conf)
	resChanged, promptChanged := make(chan struct{}, 100), make(chan struct{}, 100)
	opts := &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { resChanged <- struct{}{} },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { promptChanged <- struct{}{} },
	}
	rs := startReload(t, opts, nil, dir)
	counts := func() (int, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r, err := rs.cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatalf("resources/list: %v\nstderr:\n%s", err, rs.stderr)
		}
		p, err := rs.cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatalf("prompts/list: %v\nstderr:\n%s", err, rs.stderr)
		}
		return len(r.Resources), len(p.Prompts)
	}
	res0, pr0 := counts()
	if res0 == 0 || pr0 == 0 {
		t.Fatalf("conformance serves %d resources and %d prompts at start: want some of each", res0, pr0)
	}
	wait := func(what string, ch chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(60 * time.Second):
			t.Fatalf("no %s within a minute\nstderr:\n%s", what, rs.stderr)
		}
	}

	if err := os.Remove(conf); err != nil {
		t.Fatal(err)
	}
	wait("resources/list_changed after the removal", resChanged)
	wait("prompts/list_changed after the removal", promptChanged)
	rs.eventually("resources and prompts withdrawn", func() bool { r, p := counts(); return r == 0 && p == 0 })

	// Back, in 16 chunks with a pause between them.
	data, err := os.ReadFile(fixture.Path(t, "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(conf)
	if err != nil {
		t.Fatal(err)
	}
	step := len(data)/16 + 1
	for off := 0; off < len(data); off += step {
		if _, err := f.Write(data[off:min(off+step, len(data))]); err != nil {
			t.Fatal(err)
		}
		f.Sync()
		time.Sleep(20 * time.Millisecond)
	}
	f.Close()
	wait("resources/list_changed after the write", resChanged)
	wait("prompts/list_changed after the write", promptChanged)
	rs.eventually("resources and prompts served again", func() bool { r, p := counts(); return r == res0 && p == pr0 })
	rs.waitLog("plugin added", "conformance.wasm")
	if res, out := rs.call("echo_echo"); res.IsError {
		t.Fatalf("echo: %s", out)
	}
}

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
