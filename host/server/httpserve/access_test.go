package httpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/mcpwasm/mcpwasm/internal/testissuer"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// postInit sends a raw initialize with an Authorization header (none if
// token is empty) and returns the status, WWW-Authenticate and body.
func postInit(t *testing.T, url, token string) (int, string, string) {
	t.Helper()
	req := initRequest(t, url, "")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, body := do(t, req)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body
}

// edge serves an audited test server (servertest.Audited) over HTTP with
// o, its verifier the static tokens given (none when tokens is empty), and
// returns the MCP endpoint's URL and the audit events.
func edge(t *testing.T, tokens string, o httpserve.Options) (string, *servertest.Events) {
	t.Helper()
	if tokens != "" {
		o.Access.Verifier = servertest.StaticTokens(t, tokens).Verify
	}
	rec := &servertest.Events{}
	return servertest.ServeHTTP(t, servertest.Audited(t, rec), o) + "/mcp", rec
}

const mcpResource = "https://mcp.example.com/mcp"

// jwtIssuer starts a test issuer and a verifier of its tokens for
// mcpResource.
func jwtIssuer(t *testing.T) (*testissuer.Issuer, *bearer.JWT) {
	t.Helper()
	iss := testissuer.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v, err := bearer.NewJWT(ctx, bearer.OAuth{Issuer: iss.URL, JWKSURL: iss.JWKSURL, Resource: mcpResource})
	if err != nil {
		t.Fatal(err)
	}
	return iss, v
}

// OAuth end to end: go-sdk's client with a valid JWT lists and calls
// tools; each bad token is refused 401 with a Bearer challenge naming the
// metadata, and audited; a token without a required scope gets 403; the
// RFC 9728 metadata is served unauthenticated at both well-known paths.
func TestHTTPOAuth(t *testing.T) {
	iss, v := jwtIssuer(t)
	rec := &servertest.Events{}
	srv := servertest.Audited(t, rec)
	base := servertest.ServeHTTP(t, srv, httpserve.Options{Access: httpserve.AccessOptions{Verifier: v.Verify,
		RequiredScopes: []string{"mcp"}, Metadata: bearer.Metadata(mcpResource, iss.URL, []string{"mcp"})}})
	url := base + "/mcp"

	cs := mcptest.Connect(t, url, iss.Sign(t, iss.Claims("alice", mcpResource, "mcp")))
	if lt, err := cs.ListTools(context.Background(), nil); err != nil || len(lt.Tools) != 2 {
		t.Fatalf("tools/list with a valid token: %+v, %v", lt, err)
	}
	if res := servertest.Call(t, cs, "echo", map[string]any{"text": "hi"}); res.IsError {
		t.Fatalf("echo: %s", servertest.Text(res))
	}

	claims := func(k string, val any) map[string]any {
		c := iss.Claims("mallory", mcpResource, "mcp")
		c[k] = val
		return c
	}
	good := iss.Claims("mallory", mcpResource, "mcp")
	mdURL := `resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`
	for _, tc := range []struct{ name, token, reason string }{
		{"expired", iss.Sign(t, claims("exp", time.Now().Add(-time.Hour).Unix())), "expired"},
		{"wrong audience", iss.Sign(t, claims("aud", "https://other.example/mcp")), "aud"},
		{"wrong issuer", iss.Sign(t, claims("iss", "https://evil.example")), "iss"},
		{"wrong key", iss.SignWithOtherKey(t, good), "signature"},
		{"alg none", testissuer.Unsigned(t, good), "signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(rec.Denials(audit.DenyAuth))
			code, challenge, _ := postInit(t, url, tc.token)
			if code != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer ") ||
				!strings.Contains(challenge, `error="invalid_token"`) || !strings.Contains(challenge, mdURL) {
				t.Fatalf("status %d, WWW-Authenticate %q; want 401 with an invalid_token challenge naming the metadata", code, challenge)
			}
			if cs, err := mcptest.Dial(url, tc.token); err == nil {
				cs.Close()
				t.Fatal("go-sdk's client connected")
			}
			d := rec.Denials(audit.DenyAuth)
			if len(d) <= before || !strings.Contains(d[before].Reason, tc.reason) || d[before].Remote == "" {
				t.Fatalf("audit: %+v, want a denial mentioning %q with the remote address", d[before:], tc.reason)
			}
		})
	}
	t.Run("missing token", func(t *testing.T) {
		code, challenge, _ := postInit(t, url, "")
		if code != http.StatusUnauthorized || strings.Contains(challenge, "error=") || !strings.Contains(challenge, mdURL) {
			t.Fatalf("status %d, WWW-Authenticate %q; want 401, a challenge without error", code, challenge)
		}
		d := rec.Denials(audit.DenyAuth)
		if d[len(d)-1].Reason != "no bearer token" {
			t.Fatalf("audit %+v", d[len(d)-1])
		}
	})
	t.Run("missing scope", func(t *testing.T) {
		code, challenge, _ := postInit(t, url, iss.Sign(t, iss.Claims("bob", mcpResource, "other")))
		if code != http.StatusForbidden || !strings.Contains(challenge, `error="insufficient_scope"`) ||
			!strings.Contains(challenge, `scope="mcp"`) {
			t.Fatalf("status %d, WWW-Authenticate %q; want 403 insufficient_scope", code, challenge)
		}
		d := rec.Denials(audit.DenyAuth)
		if last := d[len(d)-1]; last.Principal != "bob" || !strings.Contains(last.Reason, "insufficient scope") {
			t.Fatalf("audit %+v", last)
		}
	})
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		var md struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		err = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || md.Resource != mcpResource || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != iss.URL {
			t.Fatalf("GET %s: %d %+v %v", path, resp.StatusCode, md, err)
		}
	}
}

// Static tokens: the right one connects and its name is the principal, a
// wrong or missing one gets 401; a scope policy hides and refuses the
// tools of a plugin whose scope the token lacks.
func TestHTTPStaticTokensAndScopes(t *testing.T) {
	toks := servertest.StaticTokens(t, "ops 0123456789abcdef0123 echo\nguest fedcba9876543210fedc\n")
	rec := &servertest.Events{}
	srv := servertest.Audited(t, rec)
	srv.RequireScopes(bearer.Policy{Plugins: map[string]string{"echo": "echo"}})
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Access: httpserve.AccessOptions{Verifier: toks.Verify}}) + "/mcp"

	for token, who := range map[string]string{"wrong-token-0000000000": "", "": ""} {
		code, challenge, _ := postInit(t, url, token)
		if code != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer") {
			t.Fatalf("token %q: %d %q, want 401 with a Bearer challenge", token, code, challenge)
		}
		d := rec.Denials(audit.DenyAuth)
		if last := d[len(d)-1]; last.Principal != who {
			t.Fatalf("audit %+v", last)
		}
	}

	names := func(cs *mcp.ClientSession) string {
		lt, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, tl := range lt.Tools {
			n = append(n, tl.Name)
		}
		return strings.Join(n, ",")
	}
	ops := mcptest.Connect(t, url, "0123456789abcdef0123")
	if got := names(ops); got != "echo,nap" {
		t.Fatalf("ops sees %q", got)
	}
	if res := servertest.Call(t, ops, "echo", map[string]any{"text": "x"}); res.IsError {
		t.Fatalf("ops echo: %s", servertest.Text(res))
	}
	guest := mcptest.Connect(t, url, "fedcba9876543210fedc")
	if got := names(guest); got != "nap" {
		t.Fatalf("guest (no echo scope) sees %q, want only nap", got)
	}
	_, err := guest.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != server.CodeForbidden || !strings.Contains(rpcErr.Message, `scope "echo"`) {
		t.Fatalf("guest calling echo: %v, want error %d naming the scope", err, server.CodeForbidden)
	}
	d := rec.Denials(audit.DenyAuth)
	if last := d[len(d)-1]; last.Principal != "guest" || !strings.Contains(last.Reason, "echo") {
		t.Fatalf("audit %+v", last)
	}
}

// Over its rate, a principal gets 429 with Retry-After, audited with its
// name; another principal is not affected.
func TestHTTPRateLimit(t *testing.T) {
	url, rec := edge(t, "a 0123456789abcdef0123\nb fedcba9876543210fedc\n", httpserve.Options{Access: httpserve.AccessOptions{Rate: 0.001, Burst: 2}})
	for i := range 2 {
		if code, _, body := postInit(t, url, "0123456789abcdef0123"); code != 200 {
			t.Fatalf("request %d within the burst: %d %s", i+1, code, body)
		}
	}
	req := initRequest(t, url, "")
	req.Header.Set("Authorization", "Bearer 0123456789abcdef0123")
	resp, body := do(t, req)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Retry-After") == "0" {
		t.Fatalf("third request: %d Retry-After %q %s, want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	d := rec.Denials(audit.DenyRateLimit)
	if len(d) != 1 || d[0].Principal != "a" || d[0].Remote == "" {
		t.Fatalf("audit %+v", d)
	}
	if code, _, body := postInit(t, url, "fedcba9876543210fedc"); code != 200 {
		t.Fatalf("another principal: %d %s", code, body)
	}
}

// Without authentication, the rate is per client IP.
func TestHTTPRateLimitPerIP(t *testing.T) {
	url, rec := edge(t, "", httpserve.Options{Access: httpserve.AccessOptions{Rate: 0.001, Burst: 1}})
	if code, _, body := postInit(t, url, ""); code != 200 {
		t.Fatalf("first: %d %s", code, body)
	}
	if code, _, _ := postInit(t, url, ""); code != http.StatusTooManyRequests {
		t.Fatalf("second: %d, want 429", code)
	}
	if d := rec.Denials(audit.DenyRateLimit); len(d) != 1 || !strings.Contains(d[0].Reason, "ip:127.0.0.1") {
		t.Fatalf("audit %+v", d)
	}
}

// Authentication comes first: an unauthenticated body over the cap gets
// 401; an authenticated one 413, answered from its declared length.
func TestHTTPBodyCapAfterAuth(t *testing.T) {
	url, _ := edge(t, "a 0123456789abcdef0123\n", httpserve.Options{MaxBodyBytes: 1024})
	big := bytes.Repeat([]byte(" "), 4096)
	for token, want := range map[string]int{"": 401, "0123456789abcdef0123": 413} {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(big))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, _ := do(t, req)
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != want {
			t.Errorf("token %q: %d, want %d", token, resp.StatusCode, want)
		}
	}
}

// Failed authentications are charged to the client IP: once its bucket is
// empty, the IP is answered 429 before any token is verified.
func TestHTTPAuthFailuresLimited(t *testing.T) {
	url, rec := edge(t, "a 0123456789abcdef0123\n", httpserve.Options{Access: httpserve.AccessOptions{Rate: 0.001, Burst: 2}})
	for i := range 2 {
		if code, _, _ := postInit(t, url, "wrong-token-000000000"); code != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401", i+1, code)
		}
	}
	if code, _, body := postInit(t, url, "0123456789abcdef0123"); code != http.StatusTooManyRequests ||
		!strings.Contains(body, "failed authentications from 127.0.0.1") {
		t.Fatalf("after 2 failures: %d %s, want 429", code, body)
	}
	if d := rec.Denials(audit.DenyRateLimit); len(d) != 1 {
		t.Fatalf("audit %+v", d)
	}
}

// A plugin's scope also gates its prompts, resources and templates: left
// out of the lists, and a get or read is refused with CodeForbidden.
func TestHTTPScopesGatePromptsAndResources(t *testing.T) {
	toks := servertest.StaticTokens(t, "full 0123456789abcdef0123 conf\nnone fedcba9876543210fedc\n")
	srv, _ := servertest.Load(t, false, server.Options{Name: "test"}, plugin.RuntimeOptions{}, servertest.Spec{Name: "conformance"})
	srv.RequireScopes(bearer.Policy{Plugins: map[string]string{"conformance": "conf"}})
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Access: httpserve.AccessOptions{Verifier: toks.Verify}}) + "/mcp"
	ctx := context.Background()
	counts := func(cs *mcp.ClientSession) [4]int {
		l := mcptest.ListAll(t, cs)
		return [4]int{len(l.Tools.Tools), len(l.Prompts.Prompts), len(l.Resources.Resources), len(l.Templates.ResourceTemplates)}
	}
	full := mcptest.Connect(t, url, "0123456789abcdef0123")
	if c := counts(full); c[0] == 0 || c[1] == 0 || c[2] == 0 || c[3] == 0 {
		t.Fatalf("with the scope: tools, prompts, resources, templates = %v; want all non-zero", c)
	}
	if _, err := full.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_simple_prompt"}); err != nil {
		t.Fatalf("prompt with the scope: %v", err)
	}
	none := mcptest.Connect(t, url, "fedcba9876543210fedc")
	if c := counts(none); c != [4]int{} {
		t.Fatalf("without the scope: %v, want nothing listed", c)
	}
	forbidden := func(what string, err error) {
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != server.CodeForbidden || !strings.Contains(rpcErr.Message, `scope "conf"`) {
			t.Errorf("%s without the scope: %v, want error %d", what, err, server.CodeForbidden)
		}
	}
	_, err := none.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_simple_prompt"})
	forbidden("prompts/get", err)
	_, err = none.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
	forbidden("resources/read", err)
	_, err = none.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}})
	forbidden("tools/call", err)
}

// Behind a trusted proxy the client is the nearest untrusted address in
// X-Forwarded-For: two clients of one balancer get their own buckets, and a
// client that writes the header itself cannot take another's bucket.
// Without TrustedProxies the header is ignored.
func TestHTTPTrustedProxies(t *testing.T) {
	post := func(url, xff string) int {
		req := initRequest(t, url, "")
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		resp, _ := do(t, req)
		resp.Body.Close()
		return resp.StatusCode
	}
	lb := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	url, rec := edge(t, "", httpserve.Options{Access: httpserve.AccessOptions{Rate: 0.001, Burst: 1, TrustedProxies: lb}})
	for i, c := range []struct {
		xff  string
		want int
	}{
		{"203.0.113.5", 200},
		{"203.0.113.6", 200},                   // another client behind the same balancer
		{"203.0.113.5", 429},                   // the first one again
		{"198.51.100.9, 203.0.113.5", 429},     // it claims another address: the balancer's entry wins
		{"203.0.113.7, 127.0.0.2", 200},        // two trusted hops: the first untrusted one
		{"203.0.113.7, bogus, 127.0.0.2", 200}, // malformed: stop at the last good one (127.0.0.2's own bucket)
	} {
		if got := post(url, c.xff); got != c.want {
			t.Errorf("request %d (X-Forwarded-For %q): %d, want %d", i, c.xff, got, c.want)
		}
	}
	if d := rec.Denials(audit.DenyRateLimit); len(d) != 2 || d[0].Remote != "203.0.113.5" || !strings.Contains(d[0].Reason, "ip:203.0.113.5") {
		t.Fatalf("audit %+v", d)
	}

	plain, _ := edge(t, "", httpserve.Options{Access: httpserve.AccessOptions{Rate: 0.001, Burst: 1}})
	if a, b := post(plain, "203.0.113.5"), post(plain, "203.0.113.6"); a != 200 || b != 429 {
		t.Fatalf("untrusted X-Forwarded-For was believed: %d %d", a, b)
	}
}
