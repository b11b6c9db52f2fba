package httpserve_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/internal/eventually"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// max_sessions is the server's; one principal may hold only
// PrincipalSessions of them, so a client opening sessions in a loop cannot
// take every place (for the session idle timeout) from everyone else. A
// place comes back when one of its sessions ends.
func TestHTTPSessionsPerPrincipal(t *testing.T) {
	url, _ := edge(t, "a 0123456789abcdef0123\nb fedcba9876543210fedc\n", httpserve.Options{MaxSessions: 10,
		Access: httpserve.AccessOptions{PrincipalSessions: 2}})
	var open []*mcp.ClientSession
	for i := range 2 {
		cs, err := mcptest.Dial(url, "0123456789abcdef0123")
		if err != nil {
			t.Fatalf("a's session %d: %v", i+1, err)
		}
		open = append(open, cs)
	}
	if cs, err := mcptest.Dial(url, "0123456789abcdef0123"); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		if cs != nil {
			cs.Close()
		}
		t.Fatalf("a's third session: %v, want 429", err)
	}
	req := initRequest(t, url, "")
	req.Header.Set("Authorization", "Bearer 0123456789abcdef0123")
	if resp, body := do(t, req); resp.StatusCode != 429 || !strings.Contains(body, "holds 2 sessions") {
		t.Fatalf("a's third session, raw: %d %s, want 429 naming the limit", resp.StatusCode, body)
	}
	b, err := mcptest.Dial(url, "fedcba9876543210fedc")
	if err != nil {
		t.Fatalf("b, while a is at its limit: %v", err)
	}
	b.Close()
	open[0].Close()
	if !eventually.Within(30*time.Second, func() bool {
		var cs *mcp.ClientSession
		if cs, err = mcptest.Dial(url, "0123456789abcdef0123"); err == nil {
			cs.Close()
		}
		return err == nil
	}) {
		t.Fatalf("a's place never came back after one of its sessions ended: %v", err)
	}
	open[1].Close()
}

// twoRoutes serves /mcp and /metrics behind token a, two requests a
// principal or an IP, and returns the base URL.
func twoRoutes(t *testing.T) string {
	toks := servertest.StaticTokens(t, "a 0123456789abcdef0123\n")
	srv := servertest.Audited(t, &servertest.Events{})
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "metrics\n") })
	return servertest.ServeHTTP(t, srv, httpserve.Options{Routes: map[string]http.Handler{"/metrics": ok},
		Access: httpserve.AccessOptions{Verifier: toks.Verify, Rate: 0.001, Burst: 2}})
}

// The limits are the endpoint's, not each route's: failed authentications
// at /mcp use up the same IP's budget at /metrics (and the other way
// round), and a principal's rate is one bucket across routes, so adding
// a route does not multiply what a client may try.
func TestHTTPLimitsSharedAcrossRoutes(t *testing.T) {
	base := twoRoutes(t)
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
	base := twoRoutes(t)
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
	lb := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	url, rec := edge(t, "", httpserve.Options{Access: httpserve.AccessOptions{Rate: 0.001, Burst: 1, TrustedProxies: lb}})
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

// A refused token's reason can carry what the client wrote (a JWT's kid,
// quoted in "key not found"); it reaches WWW-Authenticate, the log and the
// audit log clipped, so a 40 KB kid does not make a 40 KB header and audit
// line on every guess.
func TestAuthRefusalReasonClipped(t *testing.T) {
	_, v := jwtIssuer(t)
	url, rec := edge(t, "", httpserve.Options{Access: httpserve.AccessOptions{Verifier: v.Verify}})
	enc := base64.RawURLEncoding.EncodeToString
	kid := strings.Repeat("k", 40<<10)
	token := enc([]byte(`{"alg":"RS256","typ":"JWT","kid":"`+kid+`"}`)) + "." + enc([]byte(`{"sub":"x"}`)) + "." + enc([]byte("sig"))
	code, challenge, _ := postInit(t, url, token)
	if code != http.StatusUnauthorized {
		t.Fatalf("%d, want 401", code)
	}
	d := rec.Denials(audit.DenyAuth)
	if len(d) != 1 {
		t.Fatalf("audit %+v", d)
	}
	if len(challenge) > 1024 || len(d[0].Reason) > 512 {
		t.Fatalf("WWW-Authenticate is %d bytes and the audited reason %d, want at most 1024 and 512: %.200s", len(challenge), len(d[0].Reason), d[0].Reason)
	}
	if !strings.Contains(d[0].Reason, "kkkk") {
		t.Fatalf("the reason lost its start: %.200s", d[0].Reason)
	}
}
