package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// redactingExporter passes every span's name, string attributes (its
// events' too) and status message through redact before the exporter sees
// them: the known secrets (host/secrets) never leave in a trace.
type redactingExporter struct {
	sdktrace.SpanExporter
	redact func(string) string
}

func (e redactingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	out := make([]sdktrace.ReadOnlySpan, len(spans))
	for i, s := range spans {
		out[i] = redactedSpan{ReadOnlySpan: s, redact: e.redact}
	}
	return e.SpanExporter.ExportSpans(ctx, out)
}

// redactedSpan is a span as exported, its text redacted.
type redactedSpan struct {
	sdktrace.ReadOnlySpan
	redact func(string) string
}

func (s redactedSpan) Name() string { return s.redact(s.ReadOnlySpan.Name()) }

func (s redactedSpan) Attributes() []attribute.KeyValue {
	return redactAttrs(s.ReadOnlySpan.Attributes(), s.redact)
}

func (s redactedSpan) Status() sdktrace.Status {
	st := s.ReadOnlySpan.Status()
	st.Description = s.redact(st.Description)
	return st
}

func (s redactedSpan) Events() []sdktrace.Event {
	evs := s.ReadOnlySpan.Events()
	out := make([]sdktrace.Event, len(evs))
	for i, e := range evs {
		e.Name = s.redact(e.Name)
		e.Attributes = redactAttrs(e.Attributes, s.redact)
		out[i] = e
	}
	return out
}

func redactAttrs(as []attribute.KeyValue, redact func(string) string) []attribute.KeyValue {
	out := make([]attribute.KeyValue, len(as))
	for i, a := range as {
		if a.Value.Type() == attribute.STRING {
			a = attribute.String(string(a.Key), redact(a.Value.AsString()))
		}
		out[i] = a
	}
	return out
}
