// Package traceparent carries a request's W3C trace context through one
// call: MCP clients send it in the request's _meta under "traceparent"
// (SEP-414, and the 2026-07-28 protocol), and mcpwasm puts it in the call's
// context, on every log line logged with that context, and in the call's
// audit record, so an operator can find a client's trace in the server's
// logs.
//
// Only a well-formed traceparent is kept: the value comes from the client,
// and anything else (a long string, control characters) is dropped rather
// than written to the logs.
package traceparent

import (
	"context"
	"log/slog"
)

// MetaKey is the _meta key that carries the traceparent.
const MetaKey = "traceparent"

// FromMeta returns the traceparent in a request's _meta, or "" when there
// is none or it is not a valid W3C traceparent.
func FromMeta(meta map[string]any) string {
	s, _ := meta[MetaKey].(string)
	if !Valid(s) {
		return ""
	}
	return s
}

// Valid reports whether s is a W3C traceparent: version-traceid-parentid-
// flags in lowercase hex, the version not ff, the trace and parent ids not
// all zeros. Version 00 is exactly 55 characters; a later version may
// append fields after a dash (W3C Trace Context, "Versioning of
// traceparent"), up to a bound of 256 characters here.
func Valid(s string) bool {
	if len(s) < 55 || len(s) > 256 || (s[:2] == "00" && len(s) != 55) || (len(s) > 55 && s[55] != '-') {
		return false
	}
	if s[2] != '-' || s[35] != '-' || s[52] != '-' || s[:2] == "ff" {
		return false
	}
	for _, f := range []string{s[:2], s[3:35], s[36:52], s[53:55]} {
		if !hex(f) {
			return false
		}
	}
	if zeros(s[3:35]) || zeros(s[36:52]) {
		return false
	}
	for i := 55; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func hex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func zeros(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}

type ctxKey struct{}

// NewContext returns ctx carrying tp; an empty tp returns ctx as it is.
func NewContext(ctx context.Context, tp string) context.Context {
	if tp == "" {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, tp)
}

// FromContext returns the traceparent ctx carries, or "".
func FromContext(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	tp, _ := ctx.Value(ctxKey{}).(string)
	return tp
}

// LogHandler wraps h so that a record logged with a context carrying a
// traceparent (logger.InfoContext(ctx, ...)) gets a "traceparent"
// attribute.
func LogHandler(h slog.Handler) slog.Handler { return handler{h} }

type handler struct{ slog.Handler }

func (h handler) Handle(ctx context.Context, r slog.Record) error {
	if tp := FromContext(ctx); tp != "" {
		r = r.Clone()
		r.AddAttrs(slog.String(MetaKey, tp))
	}
	return h.Handler.Handle(ctx, r)
}

func (h handler) WithAttrs(as []slog.Attr) slog.Handler { return handler{h.Handler.WithAttrs(as)} }
func (h handler) WithGroup(name string) slog.Handler    { return handler{h.Handler.WithGroup(name)} }
