package tracing

import (
	"context"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys: OpenTelemetry's semantic conventions where they have
// one (MCP, GenAI, HTTP, error), mcpwasm.* for the sandbox's own.
const (
	KeyMethod          = "mcp.method.name"
	KeySession         = "mcp.session.id"
	KeyProtocolVersion = "mcp.protocol.version"
	KeyResourceURI     = "mcp.resource.uri"
	KeyRequestID       = "jsonrpc.request.id"
	KeyToolName        = "gen_ai.tool.name"
	KeyPromptName      = "gen_ai.prompt.name"
	KeyOperation       = "gen_ai.operation.name"
	KeyErrorType       = "error.type"
	KeyRPCStatus       = "rpc.response.status_code"
	KeyTransport       = "network.transport"
	KeyNetProtocol     = "network.protocol.name"

	KeyPlugin      = "mcpwasm.plugin.name"
	KeyDigest      = "mcpwasm.plugin.sha256"
	KeyExport      = "mcpwasm.plugin.export"
	KeyOutcome     = "mcpwasm.outcome"
	KeyCPUTime     = "mcpwasm.cpu_time_ms"
	KeyMemoryPeak  = "mcpwasm.memory.peak_bytes"
	KeyFSReason    = "mcpwasm.fs.reason"
	KeyRedirects   = "mcpwasm.net.redirects"
	KeySource      = "mcpwasm.source"
	KeyVerify      = "mcpwasm.verify"
	KeyReloadCause = "mcpwasm.reload.cause"

	KeyHTTPMethod   = "http.request.method"
	KeyHTTPStatus   = "http.response.status_code"
	KeyServerAddr   = "server.address"
	KeyServerPort   = "server.port"
	KeyURLScheme    = "url.scheme"
	KeyRequestSize  = "http.request.body.size"
	KeyResponseSize = "http.response.body.size"
)

// maxName bounds a client's words (a tool name, a URI) in a span: a name
// nobody serves comes from the client alone.
const maxName = 256

// Span is one span under way. A nil *Span (what every hook returns when
// tracing is off) does nothing.
type Span struct{ s trace.Span }

// End ends the span; a non-nil err marks it failed, with error.type set
// to errType (or "error" when empty) unless already set.
func (s *Span) End(err error) {
	if s == nil {
		return
	}
	if err != nil {
		s.Fail("", err.Error())
	}
	s.s.End()
}

// Fail marks the span failed: error.type errType ("error" if empty), the
// status's description msg.
func (s *Span) Fail(errType, msg string) {
	if s == nil {
		return
	}
	if errType == "" {
		errType = "error"
	}
	s.s.SetAttributes(attribute.String(KeyErrorType, errType))
	s.s.SetStatus(codes.Error, clip.String(msg, 1024))
}

// SetString sets a string attribute.
func (s *Span) SetString(key, value string) {
	if s != nil {
		s.s.SetAttributes(attribute.String(key, clip.String(value, 1024)))
	}
}

// SetInt sets an integer attribute.
func (s *Span) SetInt(key string, value int64) {
	if s != nil {
		s.s.SetAttributes(attribute.Int64(key, value))
	}
}

// Start starts an internal span named name under ctx's span (a root span
// if there is none), with string attributes given as key, value pairs.
// Off, it returns ctx and nil.
func Start(ctx context.Context, name string, kv ...string) (context.Context, *Span) {
	t := tracer()
	if t == nil {
		return ctx, nil
	}
	ctx, sp := t.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal))
	s := &Span{sp}
	for i := 0; i+1 < len(kv); i += 2 {
		s.SetString(kv[i], kv[i+1])
	}
	return ctx, s
}

// Event records an event on ctx's span, with string attributes given as
// key, value pairs. Off, or outside a span, it does nothing.
func Event(ctx context.Context, name string, kv ...string) {
	if !Enabled() {
		return
	}
	sp := trace.SpanFromContext(ctx)
	if !sp.IsRecording() {
		return
	}
	attrs := make([]attribute.KeyValue, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		attrs = append(attrs, attribute.String(kv[i], clip.String(kv[i+1], 1024)))
	}
	sp.AddEvent(name, trace.WithAttributes(attrs...))
}

// Request describes an MCP request for its span.
type Request struct {
	// Method is the JSON-RPC method.
	Method string
	// Tool, Prompt and ResourceURI name what the request is for, if any.
	Tool, Prompt, ResourceURI string
	// Session is the MCP session id, if any.
	Session string
	// ID is the JSON-RPC id as its JSON text, "" for a notification.
	ID string
	// ProtocolVersion is the negotiated MCP version.
	ProtocolVersion string
	// HTTP says the request came over Streamable HTTP (else stdio).
	HTTP bool
	// Meta is the request's _meta: its traceparent and tracestate are the
	// span's parent.
	Meta map[string]any
	// Header holds the HTTP request's headers: their traceparent is the
	// parent when _meta has none, and is linked when both do.
	Header http.Header
}

// StartRequest starts the server span of an MCP request, as
// OpenTelemetry's MCP conventions describe it: named "{method} {tool or
// prompt}", a child of the caller's trace context. Off, it returns ctx and
// nil.
func StartRequest(ctx context.Context, r Request) (context.Context, *Span) {
	t := tracer()
	if t == nil {
		return ctx, nil
	}
	parent := ctx
	var links []trace.Link
	metaSC := trace.SpanContextFromContext(propagator.Extract(ctx, metaCarrier(r.Meta)))
	var headerSC trace.SpanContext
	if r.HTTP && r.Header != nil {
		headerSC = trace.SpanContextFromContext(propagator.Extract(ctx, propagation.HeaderCarrier(r.Header)))
	}
	switch {
	case metaSC.IsValid():
		parent = trace.ContextWithRemoteSpanContext(ctx, metaSC)
		if headerSC.IsValid() && !headerSC.Equal(metaSC) {
			links = append(links, trace.Link{SpanContext: headerSC})
		}
	case headerSC.IsValid():
		parent = trace.ContextWithRemoteSpanContext(ctx, headerSC)
	}
	name := r.Method
	attrs := []attribute.KeyValue{attribute.String(KeyMethod, r.Method)}
	switch {
	case r.Tool != "":
		name += " " + clip.String(r.Tool, maxName)
		attrs = append(attrs, attribute.String(KeyToolName, clip.String(r.Tool, maxName)), attribute.String(KeyOperation, "execute_tool"))
	case r.Prompt != "":
		name += " " + clip.String(r.Prompt, maxName)
		attrs = append(attrs, attribute.String(KeyPromptName, clip.String(r.Prompt, maxName)))
	}
	if r.ResourceURI != "" {
		attrs = append(attrs, attribute.String(KeyResourceURI, clip.String(r.ResourceURI, 1024)))
	}
	if r.Session != "" {
		attrs = append(attrs, attribute.String(KeySession, clip.String(r.Session, maxName)))
	}
	if r.ID != "" {
		attrs = append(attrs, attribute.String(KeyRequestID, clip.String(strings.Trim(r.ID, `"`), maxName)))
	}
	if r.ProtocolVersion != "" {
		attrs = append(attrs, attribute.String(KeyProtocolVersion, clip.String(r.ProtocolVersion, 64)))
	}
	if r.HTTP {
		attrs = append(attrs, attribute.String(KeyTransport, "tcp"), attribute.String(KeyNetProtocol, "http"))
	} else {
		attrs = append(attrs, attribute.String(KeyTransport, "pipe"))
	}
	ctx, sp := t.Start(parent, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...), trace.WithLinks(links...))
	return ctx, &Span{sp}
}

// EndRequest ends a request's span. code is the JSON-RPC error code of a
// failed request (0 when it did not fail), msg its message; toolError says
// a tools/call answered isError.
func (s *Span) EndRequest(code int64, msg string, toolError bool) {
	if s == nil {
		return
	}
	switch {
	case code != 0:
		c := itoa(code)
		s.s.SetAttributes(attribute.String(KeyRPCStatus, c))
		s.Fail(c, msg)
	case toolError:
		s.Fail("tool_error", msg)
	}
	s.s.End()
}

// StartPluginCall starts the span of one guest call: plugin, digest and
// export. In a worker (SetupRelay) it makes none: the server's span of the
// call is the call's span.
func StartPluginCall(ctx context.Context, plugin, digest, export string) (context.Context, *Span) {
	if !Enabled() || relaying.Load() {
		return ctx, nil
	}
	return Start(ctx, "plugin.call "+plugin, KeyPlugin, plugin, KeyDigest, digest, KeyExport, export)
}

// EndPluginCall ends a guest call's span with its outcome ("ok" or the
// ABI's failure category), the CPU time the guest held a CPU slot and the
// peak of its linear memories.
func (s *Span) EndPluginCall(outcome string, cpu time.Duration, memPeak uint64, msg string) {
	if s == nil {
		return
	}
	s.s.SetAttributes(attribute.String(KeyOutcome, outcome),
		attribute.Float64(KeyCPUTime, float64(cpu.Microseconds())/1000),
		attribute.Int64(KeyMemoryPeak, int64(memPeak)))
	if outcome != "ok" {
		s.Fail(outcome, msg)
	}
	s.s.End()
}

// StartHTTP starts the client span of a guest's HTTP request. It takes
// the target's parts, never its path or query: a URL may hold a secret.
func StartHTTP(ctx context.Context, method, scheme, host string, port int) (context.Context, *Span) {
	t := tracer()
	if t == nil {
		return ctx, nil
	}
	ctx, sp := t.Start(ctx, method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String(KeyHTTPMethod, method), attribute.String(KeyURLScheme, scheme),
		attribute.String(KeyServerAddr, clip.String(host, maxName)), attribute.Int(KeyServerPort, port)))
	return ctx, &Span{sp}
}

// EndHTTP ends a guest request's span: the response's status and sizes,
// or the reason it was refused or failed.
func (s *Span) EndHTTP(status, bytesOut, bytesIn, redirects int, reason, msg string) {
	if s == nil {
		return
	}
	s.s.SetAttributes(attribute.Int(KeyRequestSize, bytesOut))
	if redirects > 0 {
		s.s.SetAttributes(attribute.Int(KeyRedirects, redirects))
	}
	switch {
	case reason != "":
		s.Fail(reason, msg)
	default:
		s.s.SetAttributes(attribute.Int(KeyHTTPStatus, status), attribute.Int(KeyResponseSize, bytesIn))
		if status >= 500 {
			s.Fail(itoa(int64(status)), "")
		}
	}
	s.s.End()
}

// Inject writes ctx's span into h as a W3C traceparent (and tracestate),
// so the server h goes to can join the trace. A traceparent already in h
// of another trace is left alone (the guest propagates a context of its
// own); one of this trace is replaced by the more precise parent. Off, or
// outside a sampled span, it does nothing.
func Inject(ctx context.Context, h http.Header) {
	if !Enabled() {
		return
	}
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return
	}
	if cur := h.Get("traceparent"); cur != "" {
		theirs := trace.SpanContextFromContext(propagator.Extract(context.Background(), propagation.HeaderCarrier(h)))
		if theirs.IsValid() && theirs.TraceID() != sc.TraceID() {
			return
		}
		h.Del("tracestate")
	}
	propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// metaCarrier reads trace context from a request's _meta.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(string, string) {}

func (m metaCarrier) Keys() []string { return []string{"traceparent", "tracestate"} }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
