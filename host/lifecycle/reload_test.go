package lifecycle

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/trust"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Hot reload in process: the catalog and the reloader serve's lifecycle
// builds, a go-sdk client over an in-memory transport, and files changed
// under them. The reloader is told which files changed (rescan), as the
// watcher does once a file settles; watching itself, SIGHUP and the binary
// are tested end to end in cmd/mcpwasm.

// harness is a served catalog with its reloader and a client.
type harness struct {
	t       *testing.T
	c       *Catalog
	r       *reloader
	cs      *mcp.ClientSession
	logs    *syncBuffer
	changed chan struct{} // one value per notifications/tools/list_changed
}

// syncBuffer is a log or stderr sink safe for concurrent writes.
type syncBuffer = fixture.Buffer

// serveInProcess wires the config file cfgPath (or none: "") and args as
// Serve does (collect, catalog, initial load, reloader) and connects a
// client.
func serveInProcess(t *testing.T, cfgPath string, args ...string) *harness {
	t.Helper()
	return serveWithTrust(t, nil, cfgPath, args...)
}

// serveWithTrust is serveInProcess with vet checking the declarations.
func serveWithTrust(t *testing.T, vet *trust.Vetter, cfgPath string, args ...string) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{t: t, logs: &syncBuffer{}, changed: make(chan struct{}, 100)}
	logger := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := &config.Config{}
	if cfgPath != "" {
		var err error
		if cfg, err = config.Load(cfgPath); err != nil {
			t.Fatal(err)
		}
	}
	lim := Limits{CacheDir: filepath.Join(os.TempDir(), "mcpwasm-test-cache"), Budget: "4GiB"}
	base, err := lim.Defaults(cfg)
	if err != nil {
		t.Fatal(err)
	}
	grants := &grantCache{}
	fetch := NewFetcher(ctx, RemoteOptions{}, cfg, logger)
	specs, problems := collectWith(args, cfg, base, false, grants.open, fetch)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	rt, err := NewRuntime(&lim, logger)
	if err != nil {
		t.Fatal(err)
	}
	features := Features(specs)
	h.c = NewCatalog(rt, CatalogOptions{LoadTimeout: time.Minute, Trust: vet,
		Server: server.Options{Name: "test", Logger: logger, Features: features}})
	h.c.Load(ctx, specs)
	h.c.srv.Ready()
	h.r = &reloader{c: h.c, args: args, cfgPath: cfgPath, cfg: cfg, lf: &lim, features: features, grants: grants, fetch: fetch}
	h.r.adopt(specs)

	ct, st := mcp.NewInMemoryTransports()
	ss, err := h.c.srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case h.changed <- struct{}{}:
		default:
		}
	}}
	h.cs, err = mcp.NewClient(&mcp.Implementation{Name: "reload-test"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.cs.Close()
		ss.Wait()
		if !h.c.Close(time.Minute) {
			t.Error("loads still running a minute after the test")
		}
	})
	return h
}

// rescan tells the reloader these files changed.
func (h *harness) rescan(paths ...string) {
	touched := map[string]bool{}
	for _, p := range paths {
		touched[absPath(p)] = true
	}
	h.r.rescan(context.Background(), touched)
}

// wantTools fails the test unless tools/list names want ("tool_a,tool_b")
// when (the moment it is checked, for the message).
func (h *harness) wantTools(when, want string) {
	h.t.Helper()
	if got := h.tools(); got != want {
		h.t.Fatalf("tools %s = %q, want %q\nlog:\n%s", when, got, want, h.logs)
	}
}

// tools lists the tool names, sorted and comma-separated.
func (h *harness) tools() string {
	h.t.Helper()
	res, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		h.t.Fatalf("tools/list: %v\nlog:\n%s", err, h.logs)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// waitChanged waits for a notifications/tools/list_changed (go-sdk sends
// them on a short delay).
func (h *harness) waitChanged() {
	h.t.Helper()
	select {
	case <-h.changed:
	case <-time.After(30 * time.Second):
		h.t.Fatalf("no notifications/tools/list_changed\nlog:\n%s", h.logs)
	}
}

// wantLog fails the test unless a log line holds every one of parts.
func (h *harness) wantLog(parts ...string) {
	h.t.Helper()
	if h.logLine(parts...) == "" {
		h.t.Fatalf("no log line with %q:\n%s", parts, h.logs)
	}
}

// rescanned tells the reloader paths changed, waits for the client to be
// told the tools changed, and checks tools/list as wantTools does.
func (h *harness) rescanned(when, want string, paths ...string) {
	h.t.Helper()
	h.rescan(paths...)
	h.waitChanged()
	h.wantTools(when, want)
}

// logLine returns the first log line holding every one of parts, or "".
func (h *harness) logLine(parts ...string) string {
	for _, line := range strings.Split(h.logs.String(), "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			return line
		}
	}
	return ""
}

func (h *harness) call(name string) (*mcp.CallToolResult, string) {
	h.t.Helper()
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err != nil {
		h.t.Fatalf("%s: %v\nlog:\n%s", name, err, h.logs)
	}
	b, _ := json.Marshal(res)
	return res, string(b)
}

// TestReloadFolder: a plugin dropped into a served folder is loaded,
// appears in tools/list and the client is told (list_changed); a file that
// is not a plugin is ignored; a removed plugin disappears from the list
// and for calls, with the same notice.
func TestReloadFolder(t *testing.T) {
	dir := fixture.Folder(t, "echo")
	h := serveInProcess(t, "", dir)
	h.wantTools("at start", "echo_echo")

	constant := filepath.Join(dir, "constant.wasm")
	fixture.Copy(t, "constant", constant)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a plugin"), 0o644)
	h.rescanned("after the drop", "constant_a,constant_b,echo_echo", constant, filepath.Join(dir, "notes.txt"))
	if _, out := h.call("constant_a"); !strings.Contains(out, `"constant"`) {
		t.Fatalf("constant_a after the drop: %s", out)
	}
	h.wantLog("plugin added", constant)

	if err := os.Remove(constant); err != nil {
		t.Fatal(err)
	}
	h.rescanned("after the removal", "echo_echo", constant)
	h.wantLog("plugin removed", constant)
	if res, out := h.call("echo_echo"); res.IsError {
		t.Fatalf("echo after the removal: %s", out)
	}
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "constant_a", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Fatal("constant_a still answers after its file was removed")
	}
}

// TestReloadCorruptKeepsOld: a corrupt file over a good one (a truncated
// copy) keeps the old version serving and logs why, naming the file; a
// rescan without a change does not try it again; the next write of the
// file is loaded and swapped in, and the old version is retired.
func TestReloadCorruptKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tool.wasm")
	fixture.Copy(t, "echo", path)
	h := serveInProcess(t, "", dir)
	h.wantTools("at start", "tool_echo")
	old := h.c.reg.Plugins()[0]
	good, err := os.ReadFile(fixture.Path(t, "constant"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	h.rescan(path)
	line := h.logLine("plugin not reloaded", "the previous version keeps serving", path)
	if !strings.Contains(line, "err=") {
		t.Fatalf("no log line saying why:\n%s", h.logs)
	}
	h.wantTools("after the corrupt copy", "tool_echo")
	if res, out := h.call("tool_echo"); res.IsError {
		t.Fatalf("the old version no longer answers: %s", out)
	}
	// An unrelated rescan does not load the failed version again.
	before := strings.Count(h.logs.String(), "plugin not reloaded")
	h.rescan(filepath.Join(dir, "other.wasm"))
	if after := strings.Count(h.logs.String(), "plugin not reloaded"); after != before {
		t.Fatalf("a failed version was tried again without its file changing (%d -> %d)", before, after)
	}

	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	h.rescanned("after the good copy", "tool_a,tool_b", path)
	h.wantLog("plugin reloaded", path)
	if ps := h.c.reg.Plugins(); len(ps) != 1 || ps[0] == old {
		t.Fatalf("the registry holds %d plugins, the old one still: %v", len(ps), len(ps) == 1 && ps[0] == old)
	}
}

// TestRefreshNeverHidesATool: while a plugin's lists are re-read (it said
// they changed) and published again, a client listing tools always sees
// the tool both lists declare: the new entries are published before the
// old ones are withdrawn. Withdrawing first leaves a moment with no tool,
// which the lister below catches within a few hundred refreshes.
func TestRefreshNeverHidesATool(t *testing.T) {
	dir := fixture.Folder(t, "list_changed")
	h := serveInProcess(t, "", dir)
	h.wantTools("at start", "list_changed_list_changed")
	p := h.c.reg.Plugins()[0]
	var stop atomic.Bool
	var missing atomic.Int32
	var lists atomic.Int32
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				res, err := h.cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Error(err)
					return
				}
				lists.Add(1)
				if len(res.Tools) != 1 {
					missing.Add(1)
				}
			}
		}()
	}
	for i := 0; i < 300 && missing.Load() == 0; i++ {
		h.c.refresh(p)
	}
	stop.Store(true)
	wg.Wait()
	if n := missing.Load(); n > 0 {
		t.Fatalf("%d of %d tools/list answers missed the tool during refreshes", n, lists.Load())
	}
	h.wantLog("plugin lists refreshed")
}

// TestReloadConfig: reloading a config that does not parse keeps the old
// config serving and says why (file, line and value); a valid one applies
// the plugins' changes and names a setting that needs a restart. (SIGHUP
// and the file watch that trigger it are tested end to end in
// cmd/mcpwasm.)
func TestReloadConfig(t *testing.T) {
	dir := fixture.Folder(t, "echo")
	cfg := filepath.Join(dir, "mcpwasm.toml")
	write := func(text string) {
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("[server]\nname = \"first\"\n\n[[plugin]]\nname = \"one\"\npath = \"echo.wasm\"\n")
	h := serveInProcess(t, cfg)
	h.wantTools("at start", "one_echo")

	write("[server]\nname = \"first\"\n\n[[plugin]]\nname = \"one\"\npath = \"echo.wasm\"\ntimeout = \"soon\"\n")
	h.r.reloadConfig(context.Background(), "SIGHUP")
	line := h.logLine("config not reloaded", cfg)
	if !strings.Contains(line, "line 7") || !strings.Contains(line, "soon") {
		t.Fatalf("the refusal does not name the line and the value: %q\nlog:\n%s", line, h.logs)
	}
	h.wantTools("after a broken config", "one_echo")
	if res, out := h.call("one_echo"); res.IsError {
		t.Fatalf("the old config no longer serves: %s", out)
	}

	write("[server]\nname = \"second\"\n\n[[plugin]]\nname = \"two\"\npath = \"echo.wasm\"\n")
	h.r.reloadConfig(context.Background(), "SIGHUP")
	h.waitChanged()
	h.wantTools("after the new config", "two_echo")
	h.wantLog("config reloaded", "SIGHUP")
	h.wantLog("takes effect at the next start", "[server] name")
	if res, out := h.call("two_echo"); res.IsError {
		t.Fatalf("two_echo: %s", out)
	}
}
