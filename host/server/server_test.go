package server_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type loadSpec struct {
	name string
	cfg  plugin.Config
}

// newServer loads fixtures (unprefixed unless prefixed is set) into a server.
func newServer(t testing.TB, prefixed bool, specs ...loadSpec) (*server.Server, *registry.Registry) {
	t.Helper()
	return newServerWith(t, prefixed, server.Options{Name: "test"}, plugin.RuntimeOptions{}, specs...)
}

// connect returns a go-sdk client session over an in-memory transport.
func connect(t testing.TB, srv *server.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// connectHTTP serves srv over Streamable HTTP and connects a client to it.
func connectHTTP(t testing.TB, srv *server.Server, o httpserve.Options) *mcp.ClientSession {
	t.Helper()
	hs := httptest.NewServer(httpserve.Handler(srv, o))
	t.Cleanup(hs.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func category(r *mcp.CallToolResult) string {
	s, _ := r.Meta[abi.MetaErrorKey].(string)
	return s
}

func TestEchoRoundTrip(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "echo"})
	for _, tr := range []struct {
		name string
		cs   *mcp.ClientSession
	}{
		{"memory", connect(t, srv, nil)},
		{"http", connectHTTP(t, srv, httpserve.Options{})},
		{"http-stateless", connectHTTP(t, srv, httpserve.Options{Stateless: true})},
	} {
		t.Run(tr.name, func(t *testing.T) {
			lt, err := tr.cs.ListTools(context.Background(), nil)
			if err != nil || len(lt.Tools) != 1 || lt.Tools[0].Name != "echo" {
				t.Fatalf("tools/list = %+v, %v", lt, err)
			}
			res := servertest.Call(t, tr.cs, "echo", map[string]any{"text": "hello ünïcode"})
			if res.IsError {
				t.Fatalf("echo failed: %s", servertest.Text(res))
			}
			// The echo fixture returns its whole input as structuredContent:
			// check the envelope the guest received.
			b, _ := json.Marshal(res.StructuredContent)
			var in struct {
				Request struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				} `json:"request"`
				Context abi.Context `json:"context"`
			}
			if err := json.Unmarshal(b, &in); err != nil {
				t.Fatalf("structuredContent %s: %v", b, err)
			}
			if in.Request.Name != "echo" || in.Request.Arguments["text"] != "hello ünïcode" ||
				in.Context.Plugin != "echo" || in.Context.Tool != "echo" || in.Context.DeadlineMs <= 0 ||
				in.Context.ID == nil || in.Context.ID.(float64) < 1 {
				t.Fatalf("guest saw %s", b)
			}
		})
	}
}

func TestPrefixedNames(t *testing.T) {
	srv, _ := newServer(t, true, loadSpec{name: "echo"})
	cs := connect(t, srv, nil)
	if res := servertest.Call(t, cs, "echo_echo", map[string]any{}); res.IsError {
		t.Fatalf("echo_echo: %s", servertest.Text(res))
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("unprefixed name must be unknown when prefixed")
	}
}

func TestLegacyPlugin(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "echo_legacy"})
	cs := connect(t, srv, nil)
	res := servertest.Call(t, cs, "echo_legacy", map[string]any{"x": 1.0})
	if res.IsError {
		t.Fatalf("legacy call: %s", servertest.Text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `"params"`) || !strings.Contains(string(b), `"x":1`) {
		t.Fatalf("legacy guest saw %s; want {\"params\":{...}}", b)
	}
}

// TestPlainPDKPlugin: a servlet built with the plain Extism AssemblyScript
// PDK, in the legacy describe/call convention, loads and works unchanged.
func TestPlainPDKPlugin(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "pdk_as"})
	cs := connect(t, srv, nil)
	if res := servertest.Call(t, cs, "shout", map[string]any{"text": "quiet please"}); res.IsError || servertest.Text(res) != "QUIET PLEASE" {
		t.Fatalf("shout: %s (isError %v)", servertest.Text(res), res.IsError)
	}
}

// TestPlainGoPDKPlugin: a hyper-mcp v2 style plugin (list_tools/call_tool,
// the {"request", "context"} envelope) built with the plain Extism Go PDK and
// standard Go loads and works unchanged.
func TestPlainGoPDKPlugin(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "pdk_go"})
	cs := connect(t, srv, nil)
	if res := servertest.Call(t, cs, "reverse", map[string]any{"text": "héllo"}); res.IsError || servertest.Text(res) != "olléh" {
		t.Fatalf("reverse: %s (isError %v)", servertest.Text(res), res.IsError)
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "echo"})
	cs := connect(t, srv, nil)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope"}); err == nil {
		t.Fatal("want a JSON-RPC error for an unknown tool")
	}
}

// TestConcurrentCallsOverlap proves there is no per-plugin lock: four 200 ms
// naps run at once. It compares overlapping intervals, not durations.
func TestConcurrentCallsOverlap(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "nap"})
	cs := connect(t, srv, nil)
	const n = 4
	var mu sync.Mutex
	type span struct{ start, end time.Time }
	var spans []span
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := time.Now()
			res := servertest.Call(t, cs, "nap", map[string]any{})
			if res.IsError {
				t.Errorf("nap: %s", servertest.Text(res))
			}
			mu.Lock()
			spans = append(spans, span{s, time.Now()})
			mu.Unlock()
		}()
	}
	wg.Wait()
	// Some instant lies inside every call: the latest start precedes the
	// earliest end. Serialized calls cannot satisfy that.
	var latestStart, earliestEnd time.Time
	for i, s := range spans {
		if i == 0 || s.start.After(latestStart) {
			latestStart = s.start
		}
		if i == 0 || s.end.Before(earliestEnd) {
			earliestEnd = s.end
		}
	}
	if !latestStart.Before(earliestEnd) {
		t.Fatalf("calls did not overlap: latest start %v, earliest end %v", latestStart, earliestEnd)
	}
}

// newServerWith is newServer with server and runtime options (see
// servertest.Load).
func newServerWith(t testing.TB, prefixed bool, opts server.Options, ro plugin.RuntimeOptions, specs ...loadSpec) (*server.Server, *registry.Registry) {
	t.Helper()
	out := make([]servertest.Spec, len(specs))
	for i, s := range specs {
		out[i] = servertest.Spec{Name: s.name, Cfg: s.cfg}
	}
	return servertest.Load(t, prefixed, opts, ro, out...)
}
