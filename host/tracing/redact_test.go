package tracing_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/mcpwasm/mcpwasm/host/tracing/tracingtest"
)

// TestRedactBeforeExport: Config.Redact rewrites a span's name, string
// attributes, events and status message before they leave.
func TestRedactBeforeExport(t *testing.T) {
	const secret = "sk-trace-0123456789"
	c := tracingtest.New(t)
	p := setup(t, c, tracing.Config{Endpoint: c.URL, Redact: func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }}, nil)
	ctx, sp := tracing.Start(context.Background(), "work "+secret, "k", "v "+secret)
	tracing.Event(ctx, "ev", "e", secret)
	sp.End(errors.New("failed with " + secret))
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", c.Spans())
	if strings.Contains(got, secret) || strings.Count(got, "[REDACTED]") < 4 {
		t.Fatalf("exported: %s", got)
	}
}
