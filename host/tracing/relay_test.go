package tracing_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/mcpwasm/mcpwasm/host/tracing/tracingtest"
)

// Import takes a worker's span only into the trace of the call it was
// relayed for, with its name clipped and its attributes bounded; the
// carrier a worker continues names the call's span.
func TestImportRelayed(t *testing.T) {
	c := tracingtest.New(t)
	p := setup(t, c, tracing.Config{}, nil)
	ctx, call := tracing.Start(context.Background(), "call")
	tp := tracing.Carrier(ctx)["traceparent"]
	parts := strings.Split(tp, "-")
	if len(parts) != 4 {
		t.Fatalf("carrier %q", tp)
	}
	trace, callSpan := parts[1], parts[2]
	now := time.Now()
	span := func(traceID string) tracing.RelayedSpan {
		attrs := map[string]any{"server.port": float64(8080), "ok": true, "addr": "127.0.0.1"}
		for i := range 40 {
			attrs[fmt.Sprint("k", i)] = "v"
		}
		return tracing.RelayedSpan{TraceID: traceID, SpanID: "0102030405060708", ParentSpanID: callSpan,
			Name: strings.Repeat("n", 1000), Kind: 3, Start: now, End: now.Add(time.Millisecond), Attrs: attrs}
	}
	if err := tracing.Import(ctx, span(headerTrace)); err == nil {
		t.Error("a span of another trace was imported")
	}
	if err := tracing.Import(context.Background(), span(trace)); err == nil {
		t.Error("a span was imported for a call that is not traced")
	}
	if err := tracing.Import(ctx, span(trace)); err != nil {
		t.Fatal(err)
	}
	call.End(nil)
	p.ForceFlush(context.Background())
	var got []tracingtest.Span
	for _, s := range c.Spans() {
		if s.SpanID == "0102030405060708" {
			got = append(got, s)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d relayed spans exported, want 1: %+v", len(got), c.Spans())
	}
	s := got[0]
	if s.TraceID != trace || s.ParentSpanID != callSpan || len(s.Name) >= 1000 || len(s.Attrs) > 32 || s.Service == "" {
		t.Errorf("relayed span: trace %s parent %s name %d bytes, %d attributes, service %q", s.TraceID, s.ParentSpanID, len(s.Name), len(s.Attrs), s.Service)
	}
}
