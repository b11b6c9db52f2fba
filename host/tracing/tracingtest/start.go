package tracingtest

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/tracing"
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
