// Package tracingtest holds in-process OTLP trace receivers for tests: an
// httptest server that decodes the protobuf ExportTraceServiceRequests it
// is POSTed and keeps their spans, and the same over gRPC.
package tracingtest

import (
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, flattened.
type Span struct {
	Name          string
	TraceID       string // hex
	SpanID        string // hex
	ParentSpanID  string // hex, "" for a root
	Kind          tracepb.Span_SpanKind
	Attrs         map[string]any
	Events        []Event
	Links         []string // the linked spans' trace ids, hex
	StatusError   bool
	StatusMessage string
	Service       string // the resource's service.name
}

// Event is one span event.
type Event struct {
	Name  string
	Attrs map[string]any
}

// Collector receives spans.
type Collector struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []Span
	requests int
	// Block, when set before a request arrives, holds every request
	// until it is closed (a collector that never answers).
	Block chan struct{}
}

// New starts a collector, closed when the test ends.
func New(t testing.TB) *Collector {
	c := &Collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.Close)
	return c
}

func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	if b := c.Block; b != nil {
		select {
		case <-b:
		case <-r.Context().Done():
			return
		}
	}
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf POST to /v1/traces", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.requests++
	for _, rs := range req.ResourceSpans {
		service, _ := attrs(rs.GetResource().GetAttributes())["service.name"].(string)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, flatten(s, service))
			}
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func flatten(s *tracepb.Span, service string) Span {
	sp := Span{Name: s.Name, TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId),
		ParentSpanID: hex.EncodeToString(s.ParentSpanId), Kind: s.Kind, Attrs: attrs(s.Attributes), Service: service,
		StatusError: s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR, StatusMessage: s.GetStatus().GetMessage()}
	for _, e := range s.Events {
		sp.Events = append(sp.Events, Event{Name: e.Name, Attrs: attrs(e.Attributes)})
	}
	for _, l := range s.Links {
		sp.Links = append(sp.Links, hex.EncodeToString(l.TraceId))
	}
	return sp
}

func attrs(kvs []*commonpb.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = v.IntValue
		case *commonpb.AnyValue_DoubleValue:
			m[kv.Key] = v.DoubleValue
		case *commonpb.AnyValue_BoolValue:
			m[kv.Key] = v.BoolValue
		}
	}
	return m
}

// Spans returns the spans received so far.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Span(nil), c.spans...)
}

// Requests counts the export requests decoded.
func (c *Collector) Requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

// Find returns the received spans for which keep is true.
func (c *Collector) Find(keep func(Span) bool) []Span {
	var out []Span
	for _, s := range c.Spans() {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// WaitFor waits up to d for a span keep accepts, and returns it.
func (c *Collector) WaitFor(d time.Duration, keep func(Span) bool) (Span, bool) {
	deadline := time.Now().Add(d)
	for {
		if got := c.Find(keep); len(got) > 0 {
			return got[0], true
		}
		if time.Now().After(deadline) {
			return Span{}, false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// GRPC is an in-process OTLP/gRPC trace receiver.
type GRPC struct {
	coltrace.UnimplementedTraceServiceServer
	// URL is its endpoint, http://127.0.0.1:port.
	URL   string
	mu    sync.Mutex
	spans []Span
}

// NewGRPC starts a gRPC receiver, stopped when the test ends.
func NewGRPC(t testing.TB) *GRPC {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &GRPC{URL: "http://" + ln.Addr().String()}
	srv := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(srv, g)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return g
}

// Export implements the trace service.
func (g *GRPC) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		service, _ := attrs(rs.GetResource().GetAttributes())["service.name"].(string)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				g.spans = append(g.spans, flatten(s, service))
			}
		}
	}
	return &coltrace.ExportTraceServiceResponse{}, nil
}

// Spans returns the spans received so far.
func (g *GRPC) Spans() []Span {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Span(nil), g.spans...)
}
