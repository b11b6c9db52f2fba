package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
