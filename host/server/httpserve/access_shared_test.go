package httpserve_test

import (
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
)

// The limits are the endpoint's, not each route's: failed authentications
// at /mcp use up the same IP's budget at /metrics (and the other way
// round), and a principal's rate is one bucket across routes, so adding
// a route does not multiply what a client may try.
func TestHTTPLimitsSharedAcrossRoutes(t *testing.T) {
	toks := servertest.StaticTokens(t, "a 0123456789abcdef0123\n")
	srv := servertest.Audited(t, &servertest.Events{})
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "metrics\n") })
	base := servertest.ServeHTTP(t, srv, httpserve.Options{Routes: map[string]http.Handler{"/metrics": ok},
		Access: httpserve.AccessOptions{Verifier: toks.Verify, Rate: 0.001, Burst: 2}})
	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, body := do(t, req)
		resp.Body.Close()
		return resp.StatusCode, body
	}
	for i := range 2 {
		if code, _, _ := postInit(t, base+"/mcp", "wrong-token-000000000"); code != http.StatusUnauthorized {
			t.Fatalf("failure %d at /mcp: %d, want 401", i+1, code)
		}
	}
	if code, body := get("/metrics", "wrong-token-000000000"); code != http.StatusTooManyRequests ||
		!strings.Contains(body, "failed authentications") {
		t.Fatalf("a third guess, at /metrics: %d %s, want 429 (the IP's failures are counted once for the server)", code, body)
	}
}

// A principal's rate bucket is one for all routes.
func TestHTTPRateSharedAcrossRoutes(t *testing.T) {
	toks := servertest.StaticTokens(t, "a 0123456789abcdef0123\n")
	srv := servertest.Audited(t, &servertest.Events{})
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "metrics\n") })
	base := servertest.ServeHTTP(t, srv, httpserve.Options{Routes: map[string]http.Handler{"/metrics": ok},
		Access: httpserve.AccessOptions{Verifier: toks.Verify, Rate: 0.001, Burst: 2}})
	get := func(path string) int {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("Authorization", "Bearer 0123456789abcdef0123")
		resp, _ := do(t, req)
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 2 {
		if code := get("/metrics"); code != http.StatusOK {
			t.Fatalf("request %d at /metrics: %d, want 200", i+1, code)
		}
	}
	if code, _, _ := postInit(t, base+"/mcp", "0123456789abcdef0123"); code != http.StatusTooManyRequests {
		t.Fatalf("a third request, at /mcp: %d, want 429 (one bucket per principal)", code)
	}
}

// An IPv6 client holds a /64 and may pick any address in it, so the
// limits without authentication (and the failed-authentication budget)
// key an IPv6 client by its /64: a new address in the same /64 does not
// get a fresh bucket. The audit log keeps the full address.
func TestHTTPRateLimitIPv6Prefix(t *testing.T) {
	rec := &servertest.Events{}
	srv := servertest.Audited(t, rec)
	lb := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Access: httpserve.AccessOptions{Rate: 0.001, Burst: 1, TrustedProxies: lb}}) + "/mcp"
	post := func(xff string) int {
		req := initRequest(t, url, "")
		req.Header.Set("X-Forwarded-For", xff)
		resp, _ := do(t, req)
		resp.Body.Close()
		return resp.StatusCode
	}
	for i, c := range []struct {
		xff  string
		want int
	}{
		{"2001:db8:1:2::1", 200},
		{"2001:db8:1:2::ffff", 429},         // the same /64
		{"2001:db8:1:2:dead:beef:0:1", 429}, // the same /64
		{"2001:db8:1:3::1", 200},            // another /64
		{"203.0.113.5", 200},                // IPv4: by address
		{"203.0.113.6", 200},
	} {
		if got := post(c.xff); got != c.want {
			t.Errorf("request %d (from %s): %d, want %d", i, c.xff, got, c.want)
		}
	}
	if d := rec.Denials(audit.DenyRateLimit); len(d) != 2 || d[0].Remote != "2001:db8:1:2::ffff" || !strings.Contains(d[0].Reason, "2001:db8:1:2::/64") {
		t.Fatalf("audit %+v", d)
	}
}
