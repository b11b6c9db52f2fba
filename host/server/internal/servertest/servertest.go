// Package servertest holds the helpers that the tests of package server and
// of its HTTP edge (package httpserve) share: a server loaded with test
// fixtures as serve loads them, an audit recorder, a static token file, a
// Streamable HTTP listener and clients. It is imported by tests only.
package servertest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/eventually"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/lifecycle"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Spec is one fixture to load, by name, with its plugin configuration.
type Spec struct {
	Name string
	Cfg  plugin.Config
}

// Load loads fixtures (unprefixed unless prefixed is set) into a server, as
// serve does, with server and runtime options (the cache folder is the
// tests' own).
func Load(t testing.TB, prefixed bool, opts server.Options, ro plugin.RuntimeOptions, specs0 ...Spec) (*server.Server, *registry.Registry) {
	t.Helper()
	ctx := context.Background()
	ro.CacheDir = filepath.Join(os.TempDir(), "mcpwasm-test-cache")
	rt, err := plugin.NewRuntime(ro)
	if err != nil {
		t.Fatal(err)
	}
	// MCPWASM_ISOLATION=process with MCPWASM_TEST_WORKER_BIN (a built
	// mcpwasm) runs every plugin in a worker process: the suites that use
	// this helper then test isolated plugins.
	iso := isolationForTests(ro.CacheDir)
	var specs []lifecycle.Spec
	for _, s := range specs0 {
		data, err := os.ReadFile(fixture.Path(t, s.Name))
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.Cfg
		cfg.Name, cfg.Source, cfg.Wasm = s.Name, s.Name+".wasm", data
		specs = append(specs, lifecycle.Spec{Config: cfg, Unprefixed: !prefixed, Isolated: iso != nil})
	}
	// The catalog wires the server as serve does: it loads, ranks and
	// publishes, and re-reads a plugin's lists when the plugin says they
	// changed.
	opts.Features = lifecycle.Features(specs)
	logs := &fixture.Buffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	cat := lifecycle.NewCatalog(rt, lifecycle.CatalogOptions{Server: opts})
	cat.SetIsolation(iso)
	cat.Load(ctx, specs)
	if got := len(cat.Registry().Plugins()); got != len(specs) {
		t.Fatalf("%d of %d plugins loaded:\n%s", got, len(specs), logs)
	}
	srv := cat.Server()
	srv.Ready()
	runtimes.Store(srv, rt)
	t.Cleanup(func() { runtimes.Delete(srv); cat.Close(time.Minute) })
	return srv, cat.Registry()
}

// isolationForTests is how Load isolates plugins when the environment
// asks for it (see Load), or nil.
func isolationForTests(cacheDir string) *lifecycle.Isolation {
	bin := os.Getenv("MCPWASM_TEST_WORKER_BIN")
	if bin == "" || os.Getenv(config.IsolationEnv) != config.IsolationProcess {
		return nil
	}
	return &lifecycle.Isolation{Exe: bin, CacheDir: cacheDir, Confine: confine.Auto}
}

// runtimes maps each server Load made to its plugin runtime, for
// WaitInFlight.
var runtimes sync.Map

// WaitInFlight waits until n guest calls of srv's runtime are in flight
// (inside Invoke), so that a test acts on a call that is running rather
// than after a fixed sleep. It may run on any goroutine: it reports a
// timeout with t.Error.
func WaitInFlight(t testing.TB, srv *server.Server, n int) {
	t.Helper()
	v, ok := runtimes.Load(srv)
	if !ok {
		t.Error("WaitInFlight: the server was not made by Load")
		return
	}
	rt := v.(*plugin.Runtime)
	if !eventually.Within(30*time.Second, func() bool { return rt.Stats().InFlight >= n }) {
		t.Errorf("%d calls in flight after 30s, want %d", rt.Stats().InFlight, n)
	}
}

// Call calls a tool and fails the test on a protocol error.
func Call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: protocol error %v (every guest failure must be an isError result)", name, err)
	}
	return res
}

// Text joins a result's text content.
func Text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// MustJSON is v as JSON.
func MustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Events collects audit events.
type Events struct {
	mu  sync.Mutex
	all []audit.Event
}

// Log returns an audit log that records into e.
func (e *Events) Log() *audit.Log {
	l := audit.New(nil, false)
	l.Observe(func(ev audit.Event) { e.mu.Lock(); e.all = append(e.all, ev); e.mu.Unlock() })
	return l
}

// All returns the events recorded so far.
func (e *Events) All() []audit.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]audit.Event(nil), e.all...)
}

// Denials returns the denials of a kind recorded so far.
func (e *Events) Denials(kind string) []audit.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []audit.Event
	for _, ev := range e.all {
		if ev.Kind == audit.KindDenial && ev.Denial == kind {
			out = append(out, ev)
		}
	}
	return out
}

// StaticTokens writes a tokens file and loads it.
func StaticTokens(t *testing.T, lines string) *bearer.Tokens {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(path, []byte(lines), 0o600)
	toks, _, err := bearer.LoadTokens(path)
	if err != nil {
		t.Fatal(err)
	}
	return toks
}

// ServeHTTP runs httpserve.Serve on a loopback port until the test ends
// and returns its base URL.
func ServeHTTP(t *testing.T, srv *server.Server, o httpserve.Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpserve.Serve(ctx, srv, ln, o) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// Runtime is a plugin runtime on the tests' compilation cache, closed
// when the test ends.
func Runtime(t testing.TB) *plugin.Runtime {
	t.Helper()
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: filepath.Join(os.TempDir(), "mcpwasm-test-cache")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

// Plugin loads the fixture name into rt with cfg, whose Name and Source are
// the fixture's unless set. The caller closes it (or the registry holding
// it does).
func Plugin(t testing.TB, rt *plugin.Runtime, name string, cfg plugin.Config) *plugin.Plugin {
	t.Helper()
	data, err := os.ReadFile(fixture.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name == "" {
		cfg.Name = name
	}
	if cfg.Source == "" {
		cfg.Source = cfg.Name + ".wasm"
	}
	cfg.Wasm = data
	p, err := rt.Load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Serve publishes plugins, unprefixed, on a new server with opts (named
// "test" unless opts names it) and marks it ready; the registry closes
// them when the test ends.
func Serve(t testing.TB, opts server.Options, ps ...*plugin.Plugin) (*server.Server, *registry.Registry) {
	t.Helper()
	ctx := context.Background()
	if opts.Name == "" {
		opts.Name = "test"
	}
	reg := registry.New()
	t.Cleanup(func() { reg.Close(ctx) })
	srv := server.New(reg, opts)
	for _, p := range ps {
		e, err := reg.Add(ctx, p, registry.AddOptions{Unprefixed: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.AddEntry(e); err != nil {
			t.Fatal(err)
		}
	}
	srv.Ready()
	return srv, reg
}

// Audited loads the echo and nap fixtures (unprefixed) into a server
// recording to rec.
func Audited(t *testing.T, rec *Events) *server.Server {
	t.Helper()
	rt := Runtime(t)
	srv, _ := Serve(t, server.Options{Audit: rec.Log(), Features: server.Features{Tools: true}},
		Plugin(t, rt, "echo", plugin.Config{}), Plugin(t, rt, "nap", plugin.Config{}))
	return srv
}
