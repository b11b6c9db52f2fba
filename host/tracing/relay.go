package tracing

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// A worker process (host/isolate) has no exporter and no network of its
// own, so the spans its calls make (a guest's HTTP requests) are relayed:
// the server hands the call's span context to the worker with the call
// (Carrier), the worker continues that trace (Continue) under a relay
// provider (SetupRelay) whose ended spans go back to the server, and the
// server exports them as its own (Import), after checking they belong to
// the call's trace.

// RelayedSpan is a span a worker ended, as it crosses to the server.
type RelayedSpan struct {
	TraceID      string         `json:"trace_id"`
	SpanID       string         `json:"span_id"`
	ParentSpanID string         `json:"parent_span_id"`
	Name         string         `json:"name"`
	Kind         int            `json:"kind"`
	Start        time.Time      `json:"start"`
	End          time.Time      `json:"end"`
	Attrs        map[string]any `json:"attrs,omitempty"` // string, number or bool values
	Error        bool           `json:"error,omitempty"`
	Message      string         `json:"message,omitempty"`
}

// Limits on what Import takes from a worker.
const (
	maxRelayedAttrs = 32
	maxRelayedValue = 1024
)

// Carrier returns ctx's span context as W3C trace headers, for a worker
// to continue, or nil when tracing is off or ctx holds no sampled span.
func Carrier(ctx context.Context) map[string]string {
	if !Enabled() {
		return nil
	}
	if sc := trace.SpanContextFromContext(ctx); !sc.IsValid() || !sc.IsSampled() {
		return nil
	}
	m := map[string]string{}
	propagator.Inject(ctx, propagation.MapCarrier(m))
	return m
}

// Continue returns ctx carrying the remote span context in c (Carrier's
// map), so spans started under it are its children. A nil or unreadable
// c leaves ctx as it is.
func Continue(ctx context.Context, c map[string]string) context.Context {
	if len(c) == 0 {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier(c))
}

// relaying is set in a process that relays its spans (a worker): the
// server's span of each call is that call's span, so StartPluginCall
// makes none.
var relaying atomic.Bool

// SetupRelay makes this process's spans go to send when they end, each
// with the context it was started in (which tells a worker whose call it
// belongs to). Only spans under a sampled remote parent (Continue) are
// recorded. A worker calls it once, before any call.
func SetupRelay(send func(ctx context.Context, s RelayedSpan)) {
	r := &relay{send: send, ctxs: map[trace.SpanID]context.Context{}}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample())), sdktrace.WithSpanProcessor(r))
	relaying.Store(true)
	active.Store(&state{endpoint: "relay", tp: tp, tracer: tp.Tracer(ScopeName)})
}

// relay is SetupRelay's span processor.
type relay struct {
	send func(context.Context, RelayedSpan)
	mu   sync.Mutex
	ctxs map[trace.SpanID]context.Context // spans under way: the context each started in
}

func (r *relay) OnStart(ctx context.Context, s sdktrace.ReadWriteSpan) {
	r.mu.Lock()
	r.ctxs[s.SpanContext().SpanID()] = ctx
	r.mu.Unlock()
}

func (r *relay) OnEnd(s sdktrace.ReadOnlySpan) {
	id := s.SpanContext().SpanID()
	r.mu.Lock()
	ctx := r.ctxs[id]
	delete(r.ctxs, id)
	r.mu.Unlock()
	if ctx == nil {
		return
	}
	rs := RelayedSpan{TraceID: s.SpanContext().TraceID().String(), SpanID: id.String(), ParentSpanID: s.Parent().SpanID().String(),
		Name: s.Name(), Kind: int(s.SpanKind()), Start: s.StartTime(), End: s.EndTime(),
		Error: s.Status().Code == codes.Error, Message: s.Status().Description}
	if attrs := s.Attributes(); len(attrs) > 0 {
		rs.Attrs = make(map[string]any, len(attrs))
		for _, kv := range attrs {
			rs.Attrs[string(kv.Key)] = kv.Value.AsInterface()
		}
	}
	r.send(ctx, rs)
}

func (r *relay) Shutdown(context.Context) error   { return nil }
func (r *relay) ForceFlush(context.Context) error { return nil }

// Import exports a span a worker relayed for the call whose context is
// ctx. It must be in ctx's trace, under a sampled span: a worker cannot
// write into another trace. Names and values are clipped, attributes
// bounded, and the server's redaction applies as to its own spans.
func Import(ctx context.Context, rs RelayedSpan) error {
	s := active.Load()
	if s == nil || s.q == nil {
		return nil // tracing is off here: nothing to export
	}
	call := trace.SpanContextFromContext(ctx)
	if !call.IsValid() || !call.IsSampled() {
		return errors.New("the call is not traced")
	}
	tid, err1 := trace.TraceIDFromHex(rs.TraceID)
	sid, err2 := trace.SpanIDFromHex(rs.SpanID)
	pid, err3 := trace.SpanIDFromHex(rs.ParentSpanID)
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("span ids: %w", err)
	}
	if tid != call.TraceID() {
		return errors.New("a span of another trace")
	}
	if rs.End.Before(rs.Start) || rs.Kind < int(trace.SpanKindUnspecified) || rs.Kind > int(trace.SpanKindConsumer) {
		return errors.New("a span that ends before it starts, or of no kind")
	}
	stub := tracetest.SpanStub{
		Name:        clip.String(rs.Name, maxName),
		SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}),
		Parent:      trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: pid, TraceFlags: trace.FlagsSampled}),
		SpanKind:    trace.SpanKind(rs.Kind),
		StartTime:   rs.Start, EndTime: rs.End,
		Resource:             s.res,
		InstrumentationScope: s.scope,
	}
	if rs.Error {
		stub.Status = sdktrace.Status{Code: codes.Error, Description: clip.String(rs.Message, maxRelayedValue)}
	}
	for _, k := range slices.Sorted(maps.Keys(rs.Attrs)) {
		v := rs.Attrs[k]
		if len(stub.Attributes) == maxRelayedAttrs {
			stub.DroppedAttributes++
			continue
		}
		k = clip.String(k, maxName)
		switch v := v.(type) {
		case string:
			stub.Attributes = append(stub.Attributes, attribute.String(k, clip.String(v, maxRelayedValue)))
		case float64: // JSON's numbers; the span attributes relayed are integers but for CPU time
			if v == float64(int64(v)) {
				stub.Attributes = append(stub.Attributes, attribute.Int64(k, int64(v)))
			} else {
				stub.Attributes = append(stub.Attributes, attribute.Float64(k, v))
			}
		case bool:
			stub.Attributes = append(stub.Attributes, attribute.Bool(k, v))
		default:
			stub.DroppedAttributes++
		}
	}
	s.q.OnEnd(stub.Snapshot())
	return nil
}
