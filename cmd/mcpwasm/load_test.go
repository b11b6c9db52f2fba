package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/eventually"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncBuffer is a log or stderr sink safe for concurrent writes.
type syncBuffer = fixture.Buffer

func toolNames(t *testing.T, cs *mcp.ClientSession, stderr fmt.Stringer) string {
	t.Helper()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v\nstderr:\n%s", err, stderr)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
	}
	return strings.Join(names, ",")
}

func callEcho(t *testing.T, cs *mcp.ClientSession, stderr fmt.Stringer) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("echo_echo: %v %+v\nstderr:\n%s", err, res, stderr)
	}
}

// TestRefusedDeclarationKeepsServing: declarations go-sdk refuses (a
// header annotation on an object property, a resource URI url.Parse
// rejects) are load errors naming the plugin and the declaration; before,
// go-sdk's panic ended the server and every plugin with it.
func TestRefusedDeclarationKeepsServing(t *testing.T) {
	cs, stderr := stdioClient(t, fixture.Path(t, "header_object"), fixture.Path(t, "bad_resource_uri"), fixture.Path(t, "echo"))
	if got := toolNames(t, cs, stderr); got != "echo_echo" {
		t.Fatalf("tools = %s\nstderr:\n%s", got, stderr)
	}
	callEcho(t, cs, stderr)
	log := stderr.String()
	for _, want := range []string{`plugin \"header_object\": tool \"h\": refused by go-sdk`, "x-mcp-header",
		`plugin \"bad_resource_uri\": resource \"res://x/%zz\": refused by go-sdk`} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %s:\n%s", want, log)
		}
	}
}

// TestStopWhileLoading: stdin closing while the plugins still compile ends
// the server cleanly. Before, closing the runtime under a compile panicked
// in wazero ("assignment to entry in nil map") about one start in ten.
func TestStopWhileLoading(t *testing.T) {
	for i := range 40 {
		cache := t.TempDir()
		if i%2 == 1 {
			cache = "off"
		}
		cmd := exec.Command(binary, "serve", "--cache-dir", cache) // the built-in plugins
		var stderr bytes.Buffer
		cmd.Stdin, cmd.Stderr = nil, &stderr // /dev/null: EOF at once
		if err := cmd.Run(); err != nil || strings.Contains(stderr.String(), "panic") {
			t.Fatalf("run %d (cache %s): %v\n%s", i, cache, err, stderr.String())
		}
	}
}

// TestMissingPathServesTheRest: a plugin path that does not exist is
// reported with the path, and the other plugins are served (the README's
// promise); before, serve exited 2.
func TestMissingPathServesTheRest(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.wasm")
	cs, stderr := stdioClient(t, missing, fixture.Path(t, "echo"))
	if got := toolNames(t, cs, stderr); got != "echo_echo" {
		t.Fatalf("tools = %s\nstderr:\n%s", got, stderr)
	}
	callEcho(t, cs, stderr)
	if log := stderr.String(); !strings.Contains(log, "plugin not loaded") || !strings.Contains(log, missing) {
		t.Fatalf("the missing path is not reported:\n%s", log)
	}
}

// TestSlowPluginDoesNotHoldCalls: a call to a loaded plugin's tool is
// served while another plugin is still loading (slow_list takes 10 s);
// before, every tool request waited for the slowest plugin. The check is
// causal: the call returns before slow_list is reported loaded.
func TestSlowPluginDoesNotHoldCalls(t *testing.T) {
	cs, stderr := stdioClient(t, "--timeout", "60s", fixture.Path(t, "slow_list"), fixture.Path(t, "echo"))
	callEcho(t, cs, stderr)
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "plugin loaded") && strings.Contains(line, "slow_list") {
			t.Fatalf("the call waited for slow_list to load:\n%s", stderr)
		}
	}
	// The list waits for every plugin, so it is complete.
	if got := toolNames(t, cs, stderr); got != "echo_echo,slow_list_t" {
		t.Fatalf("tools = %s", got)
	}
}

// TestLoadDeadline: a plugin not ready within --load-timeout is reported as
// a load failure and the list does not wait for it.
func TestLoadDeadline(t *testing.T) {
	cs, stderr := stdioClient(t, "--timeout", "60s", "--load-timeout", "1s", fixture.Path(t, "slow_list"), fixture.Path(t, "echo"))
	if got := toolNames(t, cs, stderr); got != "echo_echo" {
		t.Fatalf("tools = %s\nstderr:\n%s", got, stderr)
	}
	// The report is written as the deadline passes; its bytes reach the
	// test through the stderr pipe, possibly after the list's answer.
	reported := func() bool {
		log := stderr.String()
		return strings.Contains(log, "not ready within the load deadline") && strings.Contains(log, "slow_list")
	}
	for end := time.Now().Add(10 * time.Second); !reported() && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if !reported() {
		t.Fatalf("the late plugin is not reported:\n%s", stderr)
	}
	callEcho(t, cs, stderr)
}

// TestCollisionOrder: two plugins declare dup://shared; the first in the
// config serves it although it finishes loading last (its list_resources
// sleeps 500 ms), and the other is reported. Before, the first to finish
// won.
func TestCollisionOrder(t *testing.T) {
	dir := t.TempDir()
	cfg := fixture.Config(t, dir, fmt.Sprintf("[[plugin]]\npath = %q\n\n[[plugin]]\npath = %q\n",
		fixture.Path(t, "slow_dup"), fixture.Path(t, "dup_fast")))
	cs, stderr := stdioClient(t, "--config", cfg)
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "dup://shared"})
	if err != nil {
		t.Fatalf("read: %v\n%s", err, stderr)
	}
	if rr.Contents[0].Text != "slow" {
		t.Fatalf("dup://shared served by the plugin that finished first (%q), not the first in the config\n%s", rr.Contents[0].Text, stderr)
	}
	if _, err := cs.ListResources(context.Background(), nil); err != nil { // the load is over
		t.Fatal(err)
	}
	if log := stderr.String(); !strings.Contains(log, `plugin \"dup_fast\": resource \"dup://shared\" is also declared by plugin \"slow_dup\"`) {
		t.Fatalf("the collision is not reported:\n%s", log)
	}
}

// rawServer is `mcpwasm serve` spoken to line by line (stdio_e2e_test.go's
// stdioServer), for tests that read the JSON-RPC stream as it is written.
type rawServer struct{ *stdioServer }

func startRaw(t *testing.T, args ...string) *rawServer {
	t.Helper()
	return &rawServer{startStdioServer(t, exec.Command(binary, append([]string{"serve", "--cache-dir", t.TempDir()}, args...)...))}
}

func (r *rawServer) send(t *testing.T, msg string) {
	t.Helper()
	r.Send(msg)
}

// nextLine returns the next line the server wrote, decoded.
func (r *rawServer) nextLine(t *testing.T) map[string]any {
	t.Helper()
	select {
	case line, ok := <-r.Lines:
		if !ok {
			t.Fatalf("the server closed stdout\nstderr:\n%s", r.stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		return m
	case <-time.After(30 * time.Second):
		t.Fatalf("no line from the server\nstderr:\n%s", r.stderr)
	}
	return nil
}

// TestNoListChangedBeforeInitialized reads the raw stdio stream: nothing
// precedes the answer to initialize (before, one list_changed per plugin
// loaded), a request before initialize is answered with a JSON-RPC code
// (before, code 0), and the first tools/list is not followed by a
// list_changed for the plugins it already lists.
func TestNoListChangedBeforeInitialized(t *testing.T) {
	r := startRaw(t, fixture.Path(t, "echo"), fixture.Path(t, "constant"), fixture.Path(t, "nap"))
	// The plugins load meanwhile; nothing may be written. Wait until all
	// three are loaded (the log says so once the registry holds them), then
	// as long again as go-sdk's 10 ms list_changed delay, many times over:
	// a notification for the loads would be on stdout before the answer.
	if !eventually.Within(30*time.Second, func() bool { return strings.Count(r.stderr.String(), "plugin loaded") >= 3 }) {
		t.Fatalf("the plugins did not load\nstderr:\n%s", r.stderr)
	}
	time.Sleep(100 * time.Millisecond)
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	m := r.nextLine(t)
	if m["id"] != 1.0 {
		t.Fatalf("first line is not the answer to the early tools/list: %v", m)
	}
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] == 0.0 || e["code"] == nil {
		t.Fatalf("early tools/list: want an error with a JSON-RPC code, got %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := r.nextLine(t); m["id"] != 2.0 {
		t.Fatalf("want the initialize result, got %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if m := r.nextLine(t); m["id"] != 3.0 {
		t.Fatalf("want the tools/list result, got %v", m)
	}
	time.Sleep(300 * time.Millisecond) // go-sdk sends list_changed 10 ms after a change
	r.send(t, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	if m := r.nextLine(t); m["id"] != 4.0 {
		t.Fatalf("want the ping result, got %v", m)
	}
}

// startOver starts `mcpwasm serve --cache-dir cache --log-level info
// ARGS...` and connects go-sdk's client.
func startOver(t *testing.T, cache string, args ...string) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--cache-dir", cache, "--watch=false"}, args...)...)
	cmd.Env = testEnv(t)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, stderr
}

// lists is every list a client can read, as JSON.
func lists(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	l := mcptest.ListAll(t, cs)
	b, _ := json.Marshal([]any{l.Tools.Tools, l.Resources.Resources, l.Templates.ResourceTemplates, l.Prompts.Prompts})
	return string(b)
}

// waitLog waits for a line of stderr containing want.
func waitLog(t *testing.T, stderr *syncBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(stderr.String(), want) {
			return
		}
	}
	t.Fatalf("no %q in stderr:\n%s", want, stderr)
}

// A second start over the same compile cache serves the same lists without
// running any plugin (the log says where each plugin's declarations came
// from), and its first calls compile and answer.
func TestWarmStartServesCachedLists(t *testing.T) {
	cache := t.TempDir()
	args := []string{fixture.Path(t, "echo"), fixture.Path(t, "sdk_as")}
	cs, stderr := startOver(t, cache, args...)
	cold := lists(t, cs)
	waitLog(t, stderr, "declarations=guest")
	cs.Close()

	cs, stderr = startOver(t, cache, args...)
	if warm := lists(t, cs); warm != cold {
		t.Fatalf("warm start lists\n%s\ncold start listed\n%s", warm, cold)
	}
	waitLog(t, stderr, "plugin=sdk_as source="+args[1]+" declarations=cache")
	if strings.Contains(stderr.String(), "declarations=guest") {
		t.Fatalf("a plugin ran at a warm start:\n%s", stderr)
	}
	callEcho(t, cs, stderr)
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "parity://about"})
	if err != nil || len(res.Contents) == 0 {
		t.Fatalf("resources/read after a warm start: %v %+v\nstderr:\n%s", err, res, stderr)
	}
}

// A plugin file changed between two starts is served as it is now.
func TestWarmStartSeesChangedFile(t *testing.T) {
	cache, dir := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "tool.wasm")
	put := func(name string) {
		data, err := os.ReadFile(fixture.Path(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("echo")
	cs, stderr := startOver(t, cache, file)
	if got := toolNames(t, cs, stderr); got != "tool_echo" {
		t.Fatalf("first start: %s", got)
	}
	cs.Close()
	put("typed")
	// --trust off: the new file declares other tools, which the default
	// trust would hold until approved (TestTrustHoldsE2E).
	cs, stderr = startOver(t, cache, "--trust", "off", file)
	if got := toolNames(t, cs, stderr); strings.Contains(got, "tool_echo") || got == "" {
		t.Fatalf("after the file changed, the tools are %s (the old file's)\n%s", got, stderr)
	}
}
