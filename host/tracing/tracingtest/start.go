package tracingtest

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// A client's trace context (W3C Trace Context's example): the trace and
// the parent span a traced request arrives with, and its traceparent.
const (
	ClientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	ClientSpan  = "00f067aa0ba902b7"
	ClientTP    = "00-" + ClientTrace + "-" + ClientSpan + "-01"
)

// Start sets up tracing (host/tracing) to export to a new Collector until
// the test ends, reading no OTEL_* variable.
func Start(t testing.TB) (*Collector, *tracing.Provider) {
	t.Helper()
	c := New(t)
	p, err := tracing.Setup(tracing.Config{Endpoint: c.URL, Env: func(string) string { return "" }})
	if err != nil || p == nil {
		t.Fatalf("tracing: %v %v", p, err)
	}
	t.Cleanup(func() { p.Shutdown(context.Background()) })
	return c, p
}
