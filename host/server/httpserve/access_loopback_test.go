package httpserve_test

import (
	"net/http"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
)

// TestLoopbackNotRateLimitedByDefault: the default per-IP rate (100/s,
// burst 200) held an unauthenticated loopback server to 100 calls/s. With
// the default, a local client is not rate limited; a request that came
// through a proxy (X-Forwarded-For) still is, as is a local client when
// the operator sets a rate.
func TestLoopbackNotRateLimitedByDefault(t *testing.T) {
	srv := server.New(registry.New(), server.Options{Name: "lo", Features: server.Features{Tools: true}})
	srv.AddNativeEcho()
	srv.Ready()
	limited := func(o httpserve.AccessOptions, header string) int {
		url := servertest.ServeHTTP(t, srv, httpserve.Options{Access: o}) + "/mcp"
		n := 0
		for i := 0; i < 400; i++ {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			req.Header.Set("Accept", "text/event-stream")
			if header != "" {
				req.Header.Set("X-Forwarded-For", header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusTooManyRequests {
				n++
			}
		}
		return n
	}
	if n := limited(httpserve.AccessOptions{}, ""); n != 0 {
		t.Errorf("a local client, default limits: %d of 400 requests refused with 429, want none", n)
	}
	if n := limited(httpserve.AccessOptions{}, "203.0.113.9"); n == 0 {
		t.Errorf("through a proxy (X-Forwarded-For), default limits: no 429 in 400 requests past a burst of 200")
	}
	if n := limited(httpserve.AccessOptions{Rate: 50, Burst: 100}, ""); n == 0 {
		t.Errorf("a local client under an explicit rate: no 429 in 400 requests past a burst of 100")
	}
}
