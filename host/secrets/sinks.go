package secrets

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
)

// Known is the server's set of known secrets, replaced whole when a
// reload reads them again. Its zero value knows none. It is safe for
// concurrent use.
type Known struct{ r atomic.Pointer[Redactor] }

// Set replaces the secrets known (see New); it returns the indexes of
// values too short to redact.
func (k *Known) Set(values []string) []int {
	r, short := New(values)
	k.r.Store(r)
	return short
}

// Redactor is the current Redactor (nil when none is set).
func (k *Known) Redactor() *Redactor {
	if k == nil {
		return nil
	}
	return k.r.Load()
}

// Redact replaces the known secrets in s.
func (k *Known) Redact(s string) (string, int) { return k.Redactor().Redact(s) }

// Handler wraps a slog.Handler so that no known secret reaches the log:
// the message and every string attribute (errors and values formatted
// with %v included) are redacted before h sees them.
func Handler(h slog.Handler, k *Known) slog.Handler { return &handler{h: h, k: k} }

type handler struct {
	h slog.Handler
	k *Known
}

func (x *handler) Enabled(ctx context.Context, l slog.Level) bool { return x.h.Enabled(ctx, l) }

func (x *handler) Handle(ctx context.Context, r slog.Record) error {
	red := x.k.Redactor()
	if red.Empty() {
		return x.h.Handle(ctx, r)
	}
	msg, _ := red.Redact(r.Message)
	out := slog.NewRecord(r.Time, r.Level, msg, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(x.attr(red, a))
		return true
	})
	return x.h.Handle(ctx, out)
}

func (x *handler) attr(red *Redactor, a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		s, _ := red.Redact(v.String())
		return slog.String(a.Key, s)
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, ga := range g {
			out[i] = x.attr(red, ga)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		s, n := red.Redact(v.String()) // errors, structs: as the handler would print them
		if n > 0 {
			return slog.String(a.Key, s)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (x *handler) WithAttrs(as []slog.Attr) slog.Handler {
	red := x.k.Redactor()
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = x.attr(red, a)
	}
	return &handler{h: x.h.WithAttrs(out), k: x.k}
}

func (x *handler) WithGroup(name string) slog.Handler {
	return &handler{h: x.h.WithGroup(name), k: x.k}
}

// Writer wraps w so that no known secret is written: each Write is
// redacted whole (the audit log writes one JSON line per Write, so a
// secret is never split between two). It reports len(p) written.
func Writer(w io.Writer, k *Known) io.Writer { return &writer{w: w, k: k} }

type writer struct {
	w io.Writer
	k *Known
}

func (x *writer) Write(p []byte) (int, error) {
	s, n := x.k.Redact(string(p))
	if n == 0 {
		return x.w.Write(p)
	}
	if _, err := io.WriteString(x.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
