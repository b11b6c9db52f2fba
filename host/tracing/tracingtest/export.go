package tracingtest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// Export starts a collector and exports this process's spans to it
// (tracing.Setup with only its endpoint) until the test ends. Flush sends
// what has ended.
func Export(t testing.TB) *Collector {
	t.Helper()
	c := New(t)
	tp, err := tracing.Setup(tracing.Config{Endpoint: c.URL, Env: func(string) string { return "" }})
	if err != nil || tp == nil {
		t.Fatal(tp, err)
	}
	c.tp = tp
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	return c
}

// Flush exports the spans that have ended (Export's collector only).
func (c *Collector) Flush() { c.tp.ForceFlush(context.Background()) }

// Target is an HTTP server that answers "hello" and records the
// traceparent header of every request it gets.
type Target struct {
	*httptest.Server
	Port int // its 127.0.0.1 port
	mu   sync.Mutex
	got  []string
}

// NewTarget starts a Target, closed when the test ends.
func NewTarget(t testing.TB) *Target {
	tg := &Target{}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tg.mu.Lock()
		tg.got = append(tg.got, r.Header.Get("traceparent"))
		tg.mu.Unlock()
		fmt.Fprint(w, "hello")
	}))
	t.Cleanup(tg.Close)
	u, _ := url.Parse(tg.URL)
	tg.Port, _ = strconv.Atoi(u.Port())
	return tg
}

// Traceparents returns the traceparent headers received, in order.
func (tg *Target) Traceparents() []string {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]string(nil), tg.got...)
}
