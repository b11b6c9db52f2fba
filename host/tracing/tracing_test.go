package tracing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/mcpwasm/mcpwasm/host/tracing/tracingtest"
)

const (
	headerTrace = "11111111111111111111111111111111"
	headerTP    = "00-" + headerTrace + "-2222222222222222-01"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// setup starts tracing to c (through OTEL_EXPORTER_OTLP_ENDPOINT unless
// cfg names an endpoint) and shuts it down when the test ends.
func setup(t *testing.T, c *tracingtest.Collector, cfg tracing.Config, env map[string]string) *tracing.Provider {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	if cfg.Endpoint == "" && env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "" {
		env["OTEL_EXPORTER_OTLP_ENDPOINT"] = c.URL
	}
	cfg.Env = envOf(env)
	p, err := tracing.Setup(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p == nil {
		t.Fatal("tracing is off")
	}
	t.Cleanup(func() { p.Shutdown(context.Background()) })
	return p
}

func TestOffUnlessConfigured(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"nothing":     {},
		"sdkDisabled": {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"},
		"none":        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none"},
		"serviceOnly": {"OTEL_SERVICE_NAME": "x"},
	} {
		p, err := tracing.Setup(tracing.Config{Env: envOf(env)})
		if err != nil || p != nil || tracing.Enabled() {
			t.Errorf("%s: Setup = %v, %v; enabled %v; want off", name, p, err, tracing.Enabled())
		}
	}
	off := false
	if p, _ := tracing.Setup(tracing.Config{Enabled: &off, Endpoint: "http://127.0.0.1:1", Env: envOf(nil)}); p != nil {
		t.Error("enabled = false did not win over an endpoint")
	}
}

func TestSetupRefusesWhatItCannotDo(t *testing.T) {
	for name, c := range map[string]struct {
		cfg tracing.Config
		env map[string]string
		msg string
	}{
		"json":        {env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, msg: `protocol "http/json"`},
		"envURL":      {env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "x:4318"}, msg: "OTEL_EXPORTER_OTLP_ENDPOINT: the endpoint must be"},
		"exporter":    {env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, msg: "zipkin"},
		"sampler":     {cfg: tracing.Config{Endpoint: "http://x:4318", Sampler: "sometimes"}, msg: `sampler "sometimes"`},
		"ratio":       {env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, msg: "between 0 and 1"},
		"endpoint":    {cfg: tracing.Config{Endpoint: "localhost:4318"}, msg: "http:// or https://"},
		"credentials": {cfg: tracing.Config{Endpoint: "https://u:p@x"}, msg: "without credentials"},
	} {
		c.cfg.Env = envOf(c.env)
		p, err := tracing.Setup(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want one saying %q", name, err, c.msg)
		}
		p.Shutdown(context.Background())
	}
}

func TestShutdownFlushesWithResourceAndConfigWinning(t *testing.T) {
	c := tracingtest.New(t)
	p := setup(t, c, tracing.Config{ServiceName: "from-config", Endpoint: c.URL},
		map[string]string{"OTEL_SERVICE_NAME": "from-env", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"})
	_, sp := tracing.Start(context.Background(), "work", "k", "v")
	sp.End(nil)
	if n := len(c.Spans()); n != 0 {
		t.Fatalf("%d spans before the batch delay or shutdown", n)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := c.Spans()
	if len(got) != 1 || got[0].Name != "work" || got[0].Attrs["k"] != "v" || got[0].Service != "from-config" {
		t.Fatalf("spans after shutdown: %+v", got)
	}
	if tracing.Enabled() {
		t.Error("still enabled after Shutdown")
	}
}

func TestSamplerFromEnv(t *testing.T) {
	c := tracingtest.New(t)
	p := setup(t, c, tracing.Config{}, map[string]string{"OTEL_TRACES_SAMPLER": "always_off"})
	_, sp := tracing.Start(context.Background(), "work")
	sp.End(nil)
	p.Shutdown(context.Background())
	if n := len(c.Spans()); n != 0 {
		t.Fatalf("always_off exported %d spans", n)
	}
}

func TestRequestSpanParents(t *testing.T) {
	c := tracingtest.New(t)
	p := setup(t, c, tracing.Config{}, nil)
	ctx := context.Background()
	hdr := http.Header{"Traceparent": {headerTP}}
	// _meta wins, the header is linked.
	_, sp := tracing.StartRequest(ctx, tracing.Request{Method: "tools/call", Tool: "echo", ID: "7", HTTP: true,
		Meta: map[string]any{"traceparent": tracingtest.ClientTP}, Header: hdr, Session: "S1", ProtocolVersion: "2025-11-25"})
	sp.EndRequest(0, "", true)
	// No _meta: the header is the parent.
	_, sp = tracing.StartRequest(ctx, tracing.Request{Method: "prompts/get", Prompt: "p", HTTP: true, Header: hdr})
	sp.EndRequest(-32602, "bad", false)
	// stdio: a header (there is none on stdio, but never trust it) is ignored.
	_, sp = tracing.StartRequest(ctx, tracing.Request{Method: "resources/read", ResourceURI: "file:///x", Header: hdr})
	sp.EndRequest(0, "", false)
	p.Shutdown(ctx)
	spans := map[string]tracingtest.Span{}
	for _, s := range c.Spans() {
		spans[s.Name] = s
	}
	call := spans["tools/call echo"]
	if call.TraceID != tracingtest.ClientTrace || call.ParentSpanID != tracingtest.ClientSpan || len(call.Links) != 1 || call.Links[0] != headerTrace {
		t.Errorf("tools/call span: trace %s parent %s links %v", call.TraceID, call.ParentSpanID, call.Links)
	}
	for k, v := range map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"jsonrpc.request.id": "7", "mcp.session.id": "S1", "mcp.protocol.version": "2025-11-25", "network.transport": "tcp",
		"error.type": "tool_error"} {
		if call.Attrs[k] != v {
			t.Errorf("tools/call %s = %v, want %v", k, call.Attrs[k], v)
		}
	}
	if !call.StatusError {
		t.Error("an isError result did not mark the span failed")
	}
	pr := spans["prompts/get p"]
	if pr.TraceID != headerTrace || pr.Attrs["error.type"] != "-32602" || pr.Attrs["rpc.response.status_code"] != "-32602" || pr.StatusMessage != "bad" {
		t.Errorf("prompts/get span: %+v", pr)
	}
	rd := spans["resources/read"]
	if rd.TraceID == headerTrace || rd.ParentSpanID != "" || rd.Attrs["mcp.resource.uri"] != "file:///x" || rd.Attrs["network.transport"] != "pipe" {
		t.Errorf("resources/read span: %+v", rd)
	}
}

func TestInject(t *testing.T) {
	c := tracingtest.New(t)
	setup(t, c, tracing.Config{}, nil)
	ctx, sp := tracing.StartRequest(context.Background(), tracing.Request{Method: "tools/call", Meta: map[string]any{"traceparent": tracingtest.ClientTP}})
	defer sp.EndRequest(0, "", false)
	ctx, hs := tracing.StartHTTP(ctx, "GET", "https", "api.example.com", 443)
	defer hs.EndHTTP(200, 0, 0, 0, "", "")

	h := http.Header{}
	tracing.Inject(ctx, h)
	if tp := h.Get("traceparent"); !strings.HasPrefix(tp, "00-"+tracingtest.ClientTrace+"-") || strings.Contains(tp, tracingtest.ClientSpan) {
		t.Errorf("injected %q, want the HTTP span in the client's trace", tp)
	}
	h = http.Header{"Traceparent": {tracingtest.ClientTP}, "Tracestate": {"x=y"}}
	tracing.Inject(ctx, h)
	if tp := h.Get("traceparent"); tp == tracingtest.ClientTP || h.Get("tracestate") == "x=y" {
		t.Errorf("the guest's traceparent of this trace was not replaced: %v", h)
	}
	h = http.Header{"Traceparent": {headerTP}}
	tracing.Inject(ctx, h)
	if tp := h.Get("traceparent"); tp != headerTP {
		t.Errorf("the guest's traceparent of another trace was replaced by %q", tp)
	}
}

// An unreachable or stuck collector never holds a span's end: the queue
// is bounded, the rest are dropped and counted, and Shutdown is bounded
// by its context.
func TestStuckCollectorNeverBlocks(t *testing.T) {
	c := tracingtest.New(t)
	c.Block = make(chan struct{})
	defer close(c.Block)
	before := tracing.ReadStats()
	p := setup(t, c, tracing.Config{QueueSize: 8, Timeout: 200 * time.Millisecond}, nil)
	start := time.Now()
	for range 1000 {
		_, sp := tracing.Start(context.Background(), "work")
		sp.End(nil)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("1000 spans took %s with a stuck collector", d) // generous: a blocked End would hang, not be slow
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	p.Shutdown(ctx)
	s := tracing.ReadStats()
	dropped, failed := s.Dropped-before.Dropped, s.Failed-before.Failed
	if dropped == 0 || failed == 0 || dropped+failed != 1000 {
		t.Errorf("of 1000 spans, %d dropped and %d failed: want both counted, and every span accounted for", dropped, failed)
	}
	if s.Exported != before.Exported {
		t.Error("spans counted as exported to a collector that never answered")
	}
}

func TestHooksOffAllocateNothing(t *testing.T) {
	if tracing.Enabled() {
		t.Fatal("tracing left on by another test")
	}
	ctx := context.Background()
	h := http.Header{}
	allocs := testing.AllocsPerRun(100, func() { hooks(ctx, h) })
	if allocs != 0 {
		t.Errorf("the hooks allocate %v times per call with tracing off", allocs)
	}
}

// hooks calls every hook once, as a guest call with one HTTP request does.
func hooks(ctx context.Context, h http.Header) {
	rctx, rs := tracing.StartRequest(ctx, tracing.Request{Method: "tools/call", Tool: "echo"})
	pctx, ps := tracing.StartPluginCall(rctx, "echo", "abc", "call_tool")
	hctx, hs := tracing.StartHTTP(pctx, "GET", "https", "example.com", 443)
	tracing.Inject(hctx, h)
	hs.EndHTTP(200, 0, 10, 0, "", "")
	tracing.Event(pctx, "fs.refused", tracing.KeyFSReason, "escape")
	ps.EndPluginCall("ok", time.Millisecond, 1<<20, "")
	rs.EndRequest(0, "", false)
}

// BenchmarkHooksOff is what tracing costs a call when it is off.
func BenchmarkHooksOff(b *testing.B) {
	ctx := context.Background()
	h := http.Header{}
	b.ReportAllocs()
	for b.Loop() {
		hooks(ctx, h)
	}
}

// BenchmarkHooksOn is the same with spans exported to a local collector.
func BenchmarkHooksOn(b *testing.B) {
	c := tracingtest.New(b)
	p, err := tracing.Setup(tracing.Config{Endpoint: c.URL, Env: envOf(nil)})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		hooks(ctx, http.Header{})
	}
}

func TestGRPC(t *testing.T) {
	g := tracingtest.NewGRPC(t)
	p := setup(t, nil, tracing.Config{Endpoint: g.URL, Protocol: "grpc"}, nil)
	_, sp := tracing.Start(context.Background(), "over grpc")
	sp.End(nil)
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := g.Spans(); len(got) != 1 || got[0].Name != "over grpc" || got[0].Service != "mcpwasm" {
		t.Fatalf("received %+v", got)
	}
}
