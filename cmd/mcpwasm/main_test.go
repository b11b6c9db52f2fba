package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/eventually"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var binary string

// defaultCache is the tests' XDG_CACHE_HOME (TestMain); testCaches gives
// each top-level test one of its own (testEnv).
var (
	defaultCache string
	testCaches   sync.Map
)

// testEnv is the environment of a command a test runs: its own
// XDG_CACHE_HOME, so that what a config-less serve records in the store's
// mcpwasm.lock (a plugin's declarations, keyed by its name and source) is
// not seen by another test serving the same plugin unprefixed, or a
// rebuilt fixture. Nil (inherit) when the test set XDG_CACHE_HOME itself.
func testEnv(t testing.TB) []string {
	if os.Getenv("XDG_CACHE_HOME") != defaultCache {
		return nil
	}
	name, _, _ := strings.Cut(t.Name(), "/")
	d, ok := testCaches.Load(name)
	if !ok {
		dir, err := os.MkdirTemp(filepath.Dir(defaultCache), "cache-")
		if err != nil {
			t.Fatal(err)
		}
		d, _ = testCaches.LoadOrStore(name, dir)
	}
	return append(os.Environ(), "XDG_CACHE_HOME="+d.(string))
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpwasm-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "mcpwasm")
	// serve records the declarations of plugins given without a config in
	// the plugin store's mcpwasm.lock (os.UserCacheDir()/mcpwasm): each
	// run of the tests gets its own, so a fixture rebuilt with other
	// declarations is not held by a previous run's record.
	defaultCache = filepath.Join(dir, "cache")
	os.Setenv("XDG_CACHE_HOME", defaultCache)
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		panic("go build: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// stdioClient starts the real binary and connects go-sdk's client over
// stdio; its stderr may be read while the server runs, and holds every
// line the server wrote before its last answer.
func stdioClient(t *testing.T, args ...string) (*mcp.ClientSession, *fixture.Log) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--cache-dir", t.TempDir()}, args...)...)
	cmd.Env = testEnv(t)
	stderr := fixture.NewLog(t)
	cmd.Stderr = stderr.File()
	return connect(t, &mcp.CommandTransport{Command: cmd}, stderr), stderr
}

// connectStdio starts cmd (serve over stdio) and connects go-sdk's client
// to it, closing the session when the test ends; stderr takes cmd's
// stderr and is shown if the connection fails.
func connectStdio(tb testing.TB, cmd *exec.Cmd, stderr io.Writer) *mcp.ClientSession {
	tb.Helper()
	cmd.Stderr = stderr
	return connect(tb, &mcp.CommandTransport{Command: cmd}, stderr)
}

// connectHTTP connects go-sdk's client to serve's Streamable HTTP url,
// closing the session when the test ends; stderr (the server's) is shown
// if the connection fails.
func connectHTTP(tb testing.TB, url string, stderr fmt.Stringer) *mcp.ClientSession {
	tb.Helper()
	return connect(tb, &mcp.StreamableClientTransport{Endpoint: url}, stderr)
}

func connect(tb testing.TB, transport mcp.Transport, stderr any) *mcp.ClientSession {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		tb.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

func TestStdioServe(t *testing.T) {
	cs, stderr := stdioClient(t, fixture.Path(t, "echo"), fixture.Path(t, "stdout_flood"), fixture.Path(t, "spin"), "--timeout", "300ms")
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "echo_echo,spin_spin,stdout_flood_stdout_flood" {
		t.Fatalf("tools = %v", names)
	}
	// A guest flooding its stdout must not reach the JSON-RPC stream: the
	// call and every later call still parse.
	for _, name := range []string{"stdout_flood_stdout_flood", "echo_echo", "spin_spin", "echo_echo"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"a": 1}})
		if err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", name, err, stderr)
		}
		if want := name == "spin_spin"; res.IsError != want {
			t.Fatalf("%s: isError = %v, meta %v", name, res.IsError, res.Meta)
		}
		if name == "echo_echo" {
			ctx, _ := res.StructuredContent.(map[string]any)["context"].(map[string]any)
			if id, _ := ctx["id"].(float64); id < 1 {
				t.Fatalf("the guest did not get the JSON-RPC id over stdio: %v", ctx)
			}
		}
	}
}

// TestStdinCloseExits checks the server ends promptly when its client goes.
func TestStdinCloseExits(t *testing.T) {
	cmd := exec.Command(binary, "serve", "--cache-dir", t.TempDir(), fixture.Path(t, "echo"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("server still running 20s after stdin closed")
	}
}

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(binary, args...)
	cmd.Env = testEnv(t)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestCallCommand(t *testing.T) {
	out, errs, code := runCLI(t, "call", "--cache-dir", "off", fixture.Path(t, "echo"), "echo", `{"text":"hi"}`)
	if code != 0 || !strings.Contains(out, `"hi"`) {
		t.Fatalf("call echo: code %d\n%s\n%s", code, out, errs)
	}
	out, _, code = runCLI(t, "call", "--cache-dir", "off", fixture.Path(t, "guest_error"), "guest_error")
	if code != 1 || !strings.Contains(out, "boom from guest") || !strings.Contains(out, `"isError": true`) {
		t.Fatalf("call guest_error: code %d\n%s", code, out)
	}
	_, errs, code = runCLI(t, "call", "--cache-dir", "off", fixture.Path(t, "echo"), "nope")
	if code != 2 || !strings.Contains(errs, `no tool "nope"`) || !strings.Contains(errs, "echo") {
		t.Fatalf("unknown tool: code %d, %s", code, errs)
	}
}

func TestInspectCommand(t *testing.T) {
	out, errs, code := runCLI(t, "inspect", "--cache-dir", "off", fixture.Path(t, "echo"))
	if code != 0 || !strings.Contains(out, "ABI v1") || !strings.Contains(out, "extism:host/env") || !strings.Contains(out, "echo") {
		t.Fatalf("inspect: code %d\n%s\n%s", code, out, errs)
	}
}

func TestLoadErrorsNameThePlugin(t *testing.T) {
	for _, c := range []struct{ fixture, want string }{
		{"bad_import", `"env"`},
		{"imported_memory", "memory"},
		{"abi_v2", "ABI v2"},
		{"bad_tools", "bad name!"},
	} {
		_, errs, code := runCLI(t, "inspect", "--cache-dir", "off", fixture.Path(t, c.fixture))
		if code == 0 || !strings.Contains(errs, c.fixture) || !strings.Contains(errs, c.want) {
			t.Errorf("%s: code %d, stderr %q; want the plugin named and %q", c.fixture, code, errs, c.want)
		}
	}
}

func TestConfigUnknownKey(t *testing.T) {
	dir := t.TempDir()
	cfg := fixture.Config(t, dir, "[server]\nname = \"x\"\n\n[defaults]\ntimeout = \"1s\"\ntimeuot = \"2s\"\n")
	_, errs, code := runCLI(t, "serve", "--config", cfg)
	if code != 2 || !strings.Contains(errs, "line 6") || !strings.Contains(errs, "defaults.timeuot") {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
}

func TestSHA256Pin(t *testing.T) {
	dir := t.TempDir()
	cfg := fixture.Config(t, dir, "[[plugin]]\npath = \""+fixture.Path(t, "echo")+"\"\nsha256 = \""+strings.Repeat("ab", 32)+"\"\n")
	cmd := exec.Command(binary, "serve", "--config", cfg, "--cache-dir", "off")
	stdin, _ := cmd.StdinPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	// Read the log until the refusal appears; a wrong or missing message
	// ends the test when the server exits (stdin closed by the deferred call
	// at the latest).
	sc := bufio.NewScanner(stderr)
	var log []string
	for sc.Scan() {
		line := sc.Text()
		log = append(log, line)
		if strings.Contains(line, "plugin not loaded") {
			if !strings.Contains(line, "sha256 mismatch") || !strings.Contains(line, "echo.wasm") {
				t.Fatalf("refusal does not name the plugin and the mismatch: %s", line)
			}
			return
		}
		if strings.Contains(line, "plugin loaded") {
			t.Fatalf("a plugin with the wrong digest was loaded: %s", line)
		}
	}
	t.Fatalf("no refusal logged:\n%s", strings.Join(log, "\n"))
}

// TestBuiltinServe runs the README's command: serve with no arguments
// serves the embedded example plugins.
func TestBuiltinServe(t *testing.T) {
	cs, stderr := stdioClient(t)
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tool := range lt.Tools {
		have[tool.Name] = true
	}
	for _, want := range []string{"units_convert", "mdtools_to_text", "textkit_count"} {
		if !have[want] {
			t.Fatalf("built-in tool %s missing; have %v\n%s", want, have, stderr)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "units_convert", Arguments: map[string]any{"value": 1, "from": "km", "to": "m"}})
	if err != nil || res.IsError {
		t.Fatalf("units_convert: %v %+v", err, res)
	}
	if b, _ := json.Marshal(res.Content); !strings.Contains(string(b), "1000") {
		t.Fatalf("1 km is not 1000 m: %s", b)
	}
}

// TestBuiltinResourceAndPrompt: the built-in set offers every primitive,
// so a newcomer running `mcpwasm serve` can try each: textkit's resource
// lists and reads, its prompt lists and gets with the diff it computes.
func TestBuiltinResourceAndPrompt(t *testing.T) {
	cs, stderr := stdioClient(t)
	ctx := context.Background()
	l := mcptest.ListAll(t, cs)
	var uris, names []string
	for _, r := range l.Resources.Resources {
		uris = append(uris, r.URI)
	}
	for _, p := range l.Prompts.Prompts {
		names = append(names, p.Name)
	}
	if !slices.Contains(uris, "textkit://regex-syntax") {
		t.Fatalf("built-in resources %v lack textkit://regex-syntax\n%s", uris, stderr)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "textkit://regex-syntax"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "text/markdown" || !strings.Contains(rr.Contents[0].Text, "RE2") {
		t.Fatalf("read textkit://regex-syntax: %v %+v", err, rr)
	}
	if !slices.Contains(names, "textkit_review_changes") {
		t.Fatalf("built-in prompts %v lack textkit_review_changes\n%s", names, stderr)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "textkit_review_changes",
		Arguments: map[string]string{"before": "one\ntwo\n", "after": "one\n2\n"}})
	if err != nil || len(gp.Messages) != 1 {
		t.Fatalf("get textkit_review_changes: %v %+v", err, gp)
	}
	if tc, ok := gp.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "-two\n+2\n") {
		t.Fatalf("the prompt does not carry the diff: %+v", gp.Messages[0].Content)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "textkit_review_changes",
		Arguments: map[string]string{"before": "x"}}); err == nil || !strings.Contains(err.Error(), "after") {
		t.Fatalf("get without the required argument after: %v", err)
	}
}

// TestSIGTERMDrains: a SIGTERM during a call lets the call finish and be
// answered, then the server exits cleanly. The signal is sent once the
// call is seen running on the --admin listener's /metrics.
func TestSIGTERMDrains(t *testing.T) {
	cmd := exec.Command(binary, "serve", "--cache-dir", t.TempDir(), "--admin", "127.0.0.1:0", fixture.Path(t, "nap"))
	stderr := &syncBuffer{} // written by exec's copying goroutine
	cmd.Stderr = stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil { // plugins loaded
		t.Fatal(err)
	}
	var admin []string // announced on stderr, which reaches us through a pipe
	eventually.Within(30*time.Second, func() bool {
		admin = regexp.MustCompile(`operator endpoints" url=(http://\S+)`).FindStringSubmatch(stderr.String())
		return admin != nil
	})
	if admin == nil {
		t.Fatalf("the admin listener was not announced:\n%s", stderr.String())
	}
	for attempt := 0; ; attempt++ {
		if attempt == 20 {
			t.Fatalf("never saw the nap call in flight in 20 tries\n%s", stderr.String())
		}
		type answer struct {
			res *mcp.CallToolResult
			err error
		}
		got := make(chan answer, 1)
		go func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nap_nap", Arguments: map[string]any{}})
			got <- answer{res, err}
		}()
		var a answer
		finished := false
		for !finished && !inFlight(admin[1]+"/metrics") {
			select {
			case a = <-got: // over before it was seen running: try again
				finished = true
			case <-time.After(time.Millisecond):
			}
		}
		if !finished {
			cmd.Process.Signal(syscall.SIGTERM)
			a = <-got
		}
		if a.err != nil || a.res.IsError {
			t.Fatalf("the in-flight call was not answered: %v %+v\n%s", a.err, a.res, stderr.String())
		}
		if !finished {
			break
		}
	}
	done := make(chan error, 1)
	go func() { done <- cs.Wait() }() // the session ends when the server exits (go-sdk reaps it)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("server did not exit after SIGTERM\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Fatalf("no shutdown log:\n%s", stderr.String())
	}
}

// TestCallExamplePlugins: `mcpwasm call` works on every example plugin
// (built from source by scripts/build-plugins.sh, which make test runs).
func TestCallExamplePlugins(t *testing.T) {
	for _, c := range []struct{ plugin, tool, args, want string }{
		{"units", "convert", `{"value":1,"from":"mi","to":"km"}`, "1.609"},
		{"mdtools", "to_text", `{"markdown":"# Title\n\nSome *bold* text"}`, "Some bold text"},
		{"textkit", "count", `{"text":"two words"}`, `"words": 2`},
		{"hashkit", "hash", `{"text":"abc","algorithm":"sha256"}`, "ba7816bf"},
	} {
		t.Run(c.plugin, func(t *testing.T) {
			path := fixture.Plugin(t, c.plugin)
			out, errs, code := runCLI(t, "call", "--cache-dir", os.TempDir()+"/mcpwasm-test-cache", path, c.tool, c.args)
			if code != 0 || !strings.Contains(out, c.want) {
				t.Errorf("%s %s: code %d, want %q in\n%s%s", c.plugin, c.tool, code, c.want, out, errs)
			}
		})
	}
}

// TestInspectShowsSkills: inspect lists the skills a plugin ships, with
// their files (the conformance fixture ships pdf-processing).
func TestInspectShowsSkills(t *testing.T) {
	out, errs, code := runCLI(t, "inspect", "--cache-dir", "off", fixture.Path(t, "conformance"))
	if code != 0 || !strings.Contains(out, "skills\n  skill://pdf-processing/SKILL.md — Extract, fill, and assemble PDF documents") ||
		!strings.Contains(out, "2 files, 345 bytes: SKILL.md, references/FORMS.md") {
		t.Fatalf("inspect: code %d\n%s\n%s", code, out, errs)
	}
}
