package hostenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/tetratelabs/wazero"
)

// The differential test: every module the repository builds (fixtures
// from WAT, Rust, AssemblyScript, TinyGo, standard Go and C; Extism PDK
// plugins in Go, Rust and AssemblyScript; hyper-mcp v1 and v2 style
// plugins; mcp.run style servlets; a guest calling http_request; the
// first-party plugins) runs through Extism's go-sdk (the reference) and
// through this package on plain wazero, with the same module
// configuration (wazero's deterministic clocks and random source), the
// same guest config, a stub for every extism:host/user import, and a
// local HTTP server the guests may reach. Each declaration export and each
// listed tool is called on a fresh instance in both, and the answers must
// be the same: return code, output, error message, what the guest
// printed, logged and left in its vars, what it handed the user host
// functions, and the HTTP requests the stub received.

// diffConfig is the guest config both hosts serve.
var diffConfig = map[string]string{"greeting": "hello from the host", "api_key": "k-123"}

// diffTimeout bounds each call (modules that spin are stopped by both).
const diffTimeout = time.Second

// observed is everything one call did.
type observed struct {
	rc       uint32
	out      []byte
	err      string
	stdout   string
	logs     []string
	vars     map[string]string
	hostfns  []string
	requests []string
}

// recorder collects what a call handed the host.
type recorder struct {
	mu      sync.Mutex
	logs    []string
	hostfns []string
}

func (r *recorder) add(list *[]string, s string) {
	r.mu.Lock()
	*list = append(*list, s)
	r.mu.Unlock()
}

// stubServer records the requests it gets and answers each with its
// method, path and body.
type stubServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newStub(t *testing.T) *stubServer {
	s := &stubServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, fmt.Sprintf("%s %s auth=%q x=%q body=%q", r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Test"), body))
		s.mu.Unlock()
		w.Header().Set("X-Stub", "yes")
		// A fixed Date: net/http's own would differ between the two hosts'
		// calls when a second turns between them (a guest that echoes the
		// headers, pdk_http, then compared unequal).
		w.Header().Set("Date", "Sun, 29 Nov 2026 00:00:00 GMT")
		if strings.HasSuffix(r.URL.Path, "/missing") {
			w.WriteHeader(http.StatusNotFound)
		}
		fmt.Fprintf(w, "stub answered %s %s with %d bytes", r.Method, r.URL.Path, len(body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *stubServer) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := s.seen
	s.seen = nil
	return seen
}

func TestDifferentialExtism(t *testing.T) {
	fixture.Differential(t, "runs every built module through two hosts")
	extism.SetLogLevel(extism.LogLevelTrace)
	log.SetOutput(io.Discard) // go-sdk logs its own messages there before SetLogger
	defer log.SetOutput(os.Stderr)
	defer extism.SetLogLevel(extism.LogLevelOff)
	stub := newStub(t)
	ctx := context.Background()
	cache := wazero.NewCompilationCache()
	defer cache.Close(ctx)
	compared, modules, ran, want := 0, 0, 0, 0
	for _, f := range fixture.Modules(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".wasm")
		if endless[name] {
			continue
		}
		want++
		t.Run(name, func(t *testing.T) {
			ran++
			wasm, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ref, refErr := newExtismHost(ctx, wasm, cache)
			own, ownErr := newOwnHost(ctx, wasm, cache)
			if (refErr == nil) != (ownErr == nil) {
				t.Errorf("loads with one host only: Extism %v, hostenv %v", refErr, ownErr)
			}
			if ref != nil {
				defer ref.close()
			}
			if own != nil {
				defer own.close()
			}
			if refErr != nil || ownErr != nil {
				return
			}
			modules++
			for _, c := range diffCallsFor(name, ref, stub.URL) {
				a := ref.call(t, c.export, c.input, stub)
				b := own.call(t, c.export, c.input, stub)
				if timedOut(a) || timedOut(b) {
					// Timing, not the ABI: how far a flood got by its
					// deadline (Extism's host calls cost more).
					if timedOut(a) != timedOut(b) {
						t.Logf("%s %.100s: timed out with one host only", c.export, c.input)
					}
					continue
				}
				compared++
				if d := differences(a, b); d != "" {
					t.Errorf("%s %.200s:\n%s", c.export, c.input, d)
				}
			}
		})
	}
	t.Logf("%d calls compared across %d modules", compared, modules)
	if ran == want && compared < 250 { // the whole set ran (no -run filter)
		t.Errorf("compared %d calls, want 250 or more: are the modules built?", compared)
	}
}

// endless are the fixtures that never end under wazero's own deadline
// check (a loop-free call tree, endless sleeps), which neither host
// interrupts: host/plugin stops them with its interruption points.
// table_bomb grows a table by 2^31 entries, which only host/plugin's
// table cap (applied at load, before either host sees the module) bounds.
var endless = map[string]bool{"calltree": true, "list_unbounded": true, "sleep_forever": true, "indsleep": true, "table_bomb": true}

type diffCall struct {
	export string
	input  []byte
}

var declarationExports = []string{"mcpwasm_abi_version", "list_tools", "describe", "list_resources", "list_resource_templates", "list_prompts"}

// diffCallsFor is what to call in a module: each declaration export it
// has, each tool list_tools names (with no arguments), and, for the HTTP
// guests, requests to the stub.
func diffCallsFor(name string, ref *extismHost, stubURL string) []diffCall {
	var calls []diffCall
	for _, e := range declarationExports {
		if ref.exports[e] {
			calls = append(calls, diffCall{e, []byte(`{"request":{},"context":{}}`)})
		}
	}
	if !ref.exports["call_tool"] {
		return calls
	}
	var tools []string
	if ref.exports["list_tools"] {
		ctx, cancel := context.WithTimeout(context.Background(), diffTimeout)
		defer cancel()
		inst, err := ref.compiled.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: wazero.NewModuleConfig()})
		if err == nil {
			_, out, _ := inst.CallWithContext(ctx, "list_tools", []byte(`{"request":{},"context":{}}`))
			var list struct{ Tools []struct{ Name string } }
			json.Unmarshal(out, &list)
			for _, tl := range list.Tools {
				tools = append(tools, tl.Name)
			}
			inst.Close(context.Background())
		}
	}
	for _, tl := range tools {
		calls = append(calls, diffCall{"call_tool", fmt.Appendf(nil, `{"request":{"name":%q,"arguments":{}},"context":{}}`, tl)})
	}
	switch name {
	case "pdk_http":
		for _, args := range []string{
			`{"url":%q}`,
			`{"url":%q,"method":"post","body":"payload","headers":{"X-Test":"1"},"auth_config":"api_key","repeat":2}`,
			`{"url":%q,"method":"DELETE","headers":{"X-Test":"gone"}}`,
		} {
			calls = append(calls, diffCall{"call_tool", fmt.Appendf(nil, `{"request":{"name":"fetch","arguments":`+args+`},"context":{}}`, stubURL+"/a/path")})
		}
		calls = append(calls, diffCall{"call_tool", fmt.Appendf(nil, `{"request":{"name":"fetch","arguments":{"url":%q}},"context":{}}`, stubURL+"/missing")})
		calls = append(calls, diffCall{"call_tool", []byte(`{"request":{"name":"fetch","arguments":{"url":"http://not-allowed.example/"}},"context":{}}`)})
	case "jsonfetch":
		calls = append(calls, diffCall{"call_tool", fmt.Appendf(nil, `{"request":{"name":"fetch_json","arguments":{"url":%q}},"context":{}}`, stubURL+"/json")})
	case "env_effects", "kernel_state":
		for _, in := range []string{"x", "xy", "xyz"} {
			calls = append(calls, diffCall{"call_tool", []byte(in)})
		}
	}
	return calls
}

// timedOut reports a call stopped at its deadline.
func timedOut(o observed) bool {
	return strings.Contains(o.err, "context deadline exceeded")
}

// differences describes how two observations differ, or "".
func differences(a, b observed) string {
	var d []string
	if a.rc != b.rc {
		d = append(d, fmt.Sprintf("return code: Extism %d, hostenv %d", a.rc, b.rc))
	}
	if !bytes.Equal(a.out, b.out) {
		d = append(d, fmt.Sprintf("output:\n  Extism  %.300q\n  hostenv %.300q", a.out, b.out))
	}
	if ea, eb := errorLine(a.err), errorLine(b.err); ea != eb {
		d = append(d, fmt.Sprintf("error:\n  Extism  %.300q\n  hostenv %.300q", ea, eb))
	}
	for _, f := range []struct {
		what string
		a, b any
	}{{"stdout/stderr", a.stdout, b.stdout}, {"logs", a.logs, b.logs}, {"vars", a.vars, b.vars},
		{"host functions", a.hostfns, b.hostfns}, {"HTTP requests", a.requests, b.requests}} {
		if fmt.Sprint(f.a) != fmt.Sprint(f.b) {
			d = append(d, fmt.Sprintf("%s:\n  Extism  %.300v\n  hostenv %.300v", f.what, fmt.Sprint(f.a), fmt.Sprint(f.b)))
		}
	}
	return strings.Join(d, "\n")
}

// errorLine is an error's first line without wazero's note that a host
// function panicked; a trap in Extism's Wasm kernel and the same trap
// here read alike ("out of bounds memory access").
func errorLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimSuffix(s, " (recovered by wazero)")
	if strings.HasPrefix(s, "wasm error: out of bounds memory access") || strings.HasPrefix(s, "out of bounds memory access") {
		return "out of bounds memory access"
	}
	return s
}
