package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/mcpwasm/mcpwasm/host/tracing/tracingtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	headerTrace = "0af7651916cd43dd8448eb211c80319c"
	headerTP    = "00-" + headerTrace + "-b7ad6b7169203331-01"
)

// headerTransport adds a traceparent header to every HTTP request.
type headerTransport struct{ tp string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("traceparent", h.tp)
	return http.DefaultTransport.RoundTrip(r)
}

// Every request gets a server span following the MCP conventions, in the
// caller's trace (its _meta, else its HTTP header); the guest call is its
// child, with the plugin's digest, outcome, CPU time and memory peak.
func TestRequestSpans(t *testing.T) {
	c, p := tracingtest.Start(t)
	srv, reg := newServer(t, false, loadSpec{name: "echo"}, loadSpec{name: "trap"})
	cs := connect(t, srv, nil)
	ctx := context.Background()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": 1},
		Meta: mcp.Meta{"traceparent": tracingtest.ClientTP}}); err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "trap", Arguments: map[string]any{},
		Meta: mcp.Meta{"traceparent": tracingtest.ClientTP}}); err != nil || !res.IsError {
		t.Fatalf("trap: %v %v", res, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nobody", Meta: mcp.Meta{"traceparent": tracingtest.ClientTP}}); err == nil {
		t.Fatal("an unknown tool answered")
	}

	hs := httptest.NewServer(httpserve.Handler(srv, httpserve.Options{}))
	defer hs.Close()
	hc, err := mcp.NewClient(&mcp.Implementation{Name: "http"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: hs.URL, HTTPClient: &http.Client{Transport: headerTransport{headerTP}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	if _, err := hc.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	p.ForceFlush(ctx)

	inTrace := func(trace, name string) tracingtest.Span {
		t.Helper()
		got := c.Find(func(s tracingtest.Span) bool { return s.TraceID == trace && s.Name == name })
		if len(got) != 1 {
			t.Fatalf("%d spans %q in trace %s; all: %+v", len(got), name, trace, c.Spans())
		}
		return got[0]
	}
	echo := c.Find(func(s tracingtest.Span) bool {
		return s.TraceID == tracingtest.ClientTrace && s.Name == "tools/call echo"
	})
	if len(echo) != 1 {
		t.Fatalf("no tools/call echo span in the client's trace: %+v", c.Spans())
	}
	req := echo[0]
	if req.ParentSpanID != tracingtest.ClientSpan || req.Attrs["gen_ai.tool.name"] != "echo" || req.Attrs["mcp.method.name"] != "tools/call" ||
		req.Attrs["jsonrpc.request.id"] == nil || req.Attrs["network.transport"] != "pipe" || req.Attrs["mcp.protocol.version"] == nil ||
		req.StatusError || req.Attrs["error.type"] != nil {
		t.Errorf("tools/call echo: %+v", req)
	}
	echoPlugin, _ := reg.Lookup("echo")
	call := inTrace(tracingtest.ClientTrace, "plugin.call echo")
	if call.ParentSpanID != req.SpanID || call.Attrs["mcpwasm.plugin.sha256"] != echoPlugin.Plugin.SHA256() ||
		call.Attrs["mcpwasm.outcome"] != "ok" || call.Attrs["mcpwasm.plugin.export"] != "call_tool" {
		t.Errorf("plugin.call echo: %+v", call)
	}
	if cpu, _ := call.Attrs["mcpwasm.cpu_time_ms"].(float64); cpu <= 0 {
		t.Errorf("cpu time %v", call.Attrs["mcpwasm.cpu_time_ms"])
	}
	if peak, _ := call.Attrs["mcpwasm.memory.peak_bytes"].(int64); peak < 1<<16 {
		t.Errorf("memory peak %v", call.Attrs["mcpwasm.memory.peak_bytes"])
	}

	trap := inTrace(tracingtest.ClientTrace, "tools/call trap")
	if trap.Attrs["error.type"] != "tool_error" || !trap.StatusError {
		t.Errorf("tools/call trap: %+v", trap)
	}
	if tc := inTrace(tracingtest.ClientTrace, "plugin.call trap"); tc.Attrs["mcpwasm.outcome"] != "trap" || tc.Attrs["error.type"] != "trap" {
		t.Errorf("plugin.call trap: %+v", tc)
	}
	if nb := inTrace(tracingtest.ClientTrace, "tools/call nobody"); nb.Attrs["error.type"] == nil || nb.Attrs["rpc.response.status_code"] == nil {
		t.Errorf("tools/call nobody: %+v", nb)
	}

	h := inTrace(headerTrace, "tools/call echo")
	if h.Attrs["network.transport"] != "tcp" || h.Attrs["mcp.session.id"] == nil {
		t.Errorf("HTTP tools/call: %+v", h)
	}
	if hp := inTrace(headerTrace, "plugin.call echo"); hp.ParentSpanID != h.SpanID {
		t.Errorf("HTTP plugin.call parent %s, want %s", hp.ParentSpanID, h.SpanID)
	}
	// The plugin compiles during its load (the catalog's plugin.load span),
	// in no client's trace.
	load := c.Find(func(s tracingtest.Span) bool { return s.Name == "plugin.load echo" })
	if l := c.Find(func(s tracingtest.Span) bool { return s.Name == "plugin.compile echo" }); len(l) != 1 || len(load) != 1 ||
		l[0].Attrs["mcpwasm.plugin.sha256"] != echoPlugin.Plugin.SHA256() || l[0].ParentSpanID != load[0].SpanID || load[0].ParentSpanID != "" {
		t.Errorf("plugin.compile echo: %+v; plugin.load echo: %+v", l, load)
	}
	if got := c.Find(func(s tracingtest.Span) bool { return s.Name == "initialize" }); len(got) == 0 {
		t.Error("no span for initialize")
	}
}

// With tracing off the middleware adds nothing a client could see, and no
// span is made.
func TestNoSpansWhenOff(t *testing.T) {
	if tracing.Enabled() {
		t.Fatal("tracing left on")
	}
	c := tracingtest.New(t)
	srv, _ := newServer(t, false, loadSpec{name: "echo"})
	servertest.Call(t, connect(t, srv, nil), "echo", map[string]any{})
	time.Sleep(50 * time.Millisecond)
	if n := len(c.Spans()); n != 0 {
		t.Fatalf("%d spans with tracing off", n)
	}
}

// A filesystem refusal is an event of the plugin call's span.
func TestFilesystemRefusalTraced(t *testing.T) {
	c, p := tracingtest.Start(t)
	grant, _ := fsTree(t)
	srv, _ := newServer(t, false, loadSpec{name: "fsprobe", cfg: plugin.Config{Grants: []plugin.Grant{{Path: grant, ReadOnly: true}}}})
	fsCall(t, connect(t, srv, nil), []string{"read", grant + "/a.txt"}, []string{"read", grant + "/outlink/secret.txt"})
	p.ForceFlush(context.Background())
	got := c.Find(func(s tracingtest.Span) bool {
		return s.Name == "plugin.call fsprobe" && s.Attrs["mcpwasm.plugin.export"] == "call_tool"
	})
	if len(got) != 1 {
		t.Fatalf("plugin.call fsprobe spans: %+v", got)
	}
	ev := got[0].Events
	if len(ev) != 1 || ev[0].Name != "mcpwasm.fs.refused" || !strings.Contains(fmt.Sprint(ev[0].Attrs["mcpwasm.fs.reason"]), "outlink/secret.txt") {
		t.Fatalf("events: %+v", ev)
	}
}

// BenchmarkToolsCallTracing is BenchmarkToolsCall's echo round trip
// (2025-11-25, in-memory, a traceparent in _meta) with tracing off, on
// and exporting to a local collector, on with no collector listening
// (connection refused), and on with a collector that accepts and never
// answers. The modes are interleaved, round after round (the machine's
// load drifts), each round b.N calls per mode; it reports each mode's
// median of the rounds' p50s, in µs. Run with -benchtime 2000x.
func BenchmarkToolsCallTracing(b *testing.B) {
	srv, _ := newServer(b, false, loadSpec{name: "echo"})
	cs := connectVersion(b, srv, nil, "2025-11-25")
	stuck := tracingtest.New(b)
	stuck.Block = make(chan struct{})
	b.Cleanup(func() { close(stuck.Block) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	modes := []struct{ name, endpoint string }{
		{"off", ""},
		{"collector", tracingtest.New(b).URL},
		{"refused", refused},
		{"stuck", stuck.URL},
	}
	const rounds = 5
	p50s := make([][]float64, len(modes))
	n := b.N
	b.StopTimer()
	for range rounds {
		for i, m := range modes {
			var p *tracing.Provider
			if m.endpoint != "" {
				if p, err = tracing.Setup(tracing.Config{Endpoint: m.endpoint, Timeout: time.Second, Env: func(string) string { return "" }}); err != nil {
					b.Fatal(err)
				}
			}
			p50s[i] = append(p50s[i], callP50(b, cs, "echo", n))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			p.Shutdown(ctx)
			cancel()
		}
	}
	for i, m := range modes {
		slices.Sort(p50s[i])
		b.ReportMetric(p50s[i][rounds/2], m.name+"-p50-µs")
	}
}

// callP50 makes n calls and returns their median, in µs.
func callP50(b *testing.B, cs *mcp.ClientSession, name string, n int) float64 {
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: name, Arguments: benchArgs,
		Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}
	d := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		d = append(d, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	slices.Sort(d)
	return float64(d[len(d)/2].Nanoseconds()) / 1000
}

// A well-formed traceparent in a request's _meta reaches the guest, in
// context._meta and in the request's _meta; a malformed one reaches it
// nowhere, and the rest of _meta stays verbatim. The echo fixture returns
// its whole input, so the test reads what the guest was given.
func TestTraceparentReachesGuest(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "echo"})
	const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	cases := map[string]struct {
		tp   any
		want string // "" = absent
	}{
		"valid":          {valid, valid},
		"later version":  {"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"},
		"newline":        {valid + "\n{\"level\":\"ERROR\"}", ""},
		"uppercase":      {strings.ToUpper(valid), ""},
		"zero trace id":  {"00-00000000000000000000000000000000-00f067aa0ba902b7-01", ""},
		"version ff":     {"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", ""},
		"huge":           {"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-" + strings.Repeat("a", 1<<16), ""},
		"not a string":   {map[string]any{"evil": true}, ""},
		"number":         {42, ""},
		"control in ext": {"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-\x1b[31m", ""},
	}
	for _, tr := range []struct {
		name string
		cs   *mcp.ClientSession
	}{
		{"in-memory", connect(t, srv, nil)},
		{"http-stateless", connectHTTP(t, srv, httpserve.Options{Stateless: true})},
	} {
		for name, c := range cases {
			t.Run(tr.name+"/"+name, func(t *testing.T) {
				res, err := tr.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo",
					Arguments: map[string]any{},
					Meta:      mcp.Meta{"traceparent": c.tp, "com.example/kept": "yes"}})
				if err != nil || res.IsError {
					t.Fatalf("echo: %v %+v", err, res)
				}
				b, _ := json.Marshal(res.StructuredContent)
				var in struct {
					Request struct {
						Meta map[string]any `json:"_meta"`
					} `json:"request"`
					Context struct {
						Meta map[string]any `json:"_meta"`
					} `json:"context"`
				}
				if err := json.Unmarshal(b, &in); err != nil {
					t.Fatal(err)
				}
				for where, m := range map[string]map[string]any{"context._meta": in.Context.Meta, "request._meta": in.Request.Meta} {
					got, present := m["traceparent"]
					switch {
					case c.want == "" && present:
						t.Errorf("%s.traceparent = %q reached the guest", where, got)
					case c.want != "" && got != c.want:
						t.Errorf("%s.traceparent = %v, want %q", where, got, c.want)
					}
					if m["com.example/kept"] != "yes" {
						t.Errorf("%s lost the other keys: %v", where, m)
					}
				}
			})
		}
	}
}
