package tracingtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
)

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
