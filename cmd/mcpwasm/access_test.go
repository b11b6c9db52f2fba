package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/testissuer"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A non-loopback bind without authentication is refused, naming the
// address and both ways out; --insecure-no-auth serves it.
func TestServeRefusesPublicBindWithoutAuth(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, "serve", "--cache-dir", t.TempDir(), "--http", "0.0.0.0:0",
		fixture.Path(t, "echo")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refusing to serve 0.0.0.0:") ||
		!strings.Contains(string(out), "--insecure-no-auth") || !strings.Contains(string(out), "tokens_file") {
		t.Fatalf("serve --http 0.0.0.0:0: %v\n%s", err, out)
	}
	if url := httpServe(t, "--http", "0.0.0.0:0", "--insecure-no-auth", fixture.Path(t, "echo")); url == "" {
		t.Fatal("--insecure-no-auth did not serve")
	}
}

// The real binary with [server.auth] tokens_file: go-sdk's client with the
// token calls a tool; without it, or with a wrong one, 401 with a Bearer
// challenge; a bad tokens file stops serve with its line.
func TestServeStaticTokens(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tokens"), []byte("ci 0123456789abcdef0123\n"), 0o600)
	cfg := fixture.Config(t, dir, "[server.auth]\ntokens_file = \"tokens\"\n[server.limits]\nrate = 50\n")
	url := httpServe(t, "--config", cfg, fixture.Path(t, "echo"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := mcptest.Connect(t, url, "0123456789abcdef0123")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError {
		t.Fatalf("echo with the token: %+v, %v", res, err)
	}
	for _, token := range []string{"", "0123456789abcdef0124"} {
		req, _ := mcptest.Post(ctx, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp := mcptest.Do(t, req)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("token %q: %d %q, want 401 with a Bearer challenge", token, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}

	os.WriteFile(filepath.Join(dir, "tokens"), []byte("ci short\n"), 0o600)
	out, err := exec.CommandContext(ctx, binary, "serve", "--config", cfg, "--http", "127.0.0.1:0", fixture.Path(t, "echo")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "tokens:1:") {
		t.Fatalf("a bad tokens file: %v\n%s", err, out)
	}
}

// The real binary as an OAuth resource server: a JWT from the in-process
// issuer, for this resource, calls a tool through go-sdk's client; one for
// another audience gets 401 naming the metadata, which is served.
func TestServeOAuth(t *testing.T) {
	iss := testissuer.New(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpwasm.toml")
	const resource = "https://mcp.example.com/mcp"
	os.WriteFile(cfg, []byte(fmt.Sprintf(`[server.auth]
resource = %q
[server.auth.oauth]
issuer = %q
jwks_url = %q
[server.auth.tool_scopes]
echo_echo = "echo"
`, resource, iss.URL, iss.JWKSURL)), 0o600)
	url := httpServe(t, "--config", cfg, fixture.Path(t, "echo"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	connect := func(token string) *mcp.ClientSession { return mcptest.Connect(t, url, token) }
	cs := connect(iss.Sign(t, iss.Claims("alice", resource, "echo")))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError {
		t.Fatalf("echo with a valid JWT: %+v, %v", res, err)
	}
	noScope := connect(iss.Sign(t, iss.Claims("bob", resource, "")))
	if lt, err := noScope.ListTools(ctx, nil); err != nil || len(lt.Tools) != 0 {
		t.Fatalf("a token without the echo scope lists %+v, %v", lt, err)
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+iss.Sign(t, iss.Claims("alice", "https://other.example/mcp", "echo")))
	resp := mcptest.Do(t, req)
	resp.Body.Close()
	if ch := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 ||
		!strings.Contains(ch, `resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`) {
		t.Fatalf("wrong audience: %d %q", resp.StatusCode, ch)
	}
	md, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(md.Body)
	md.Body.Close()
	if md.StatusCode != 200 || !strings.Contains(string(body), `"authorization_servers":["`+iss.URL+`"]`) {
		t.Fatalf("metadata: %d %s", md.StatusCode, body)
	}
}

// An issuer that cannot be reached at start does not stop serve: the
// failure is logged as an error, the server serves (refusing tokens it
// cannot check), and the first token after the issuer answers fetches the
// keys and is accepted.
func TestServeOAuthIssuerDownAtStart(t *testing.T) {
	iss := testissuer.New(t)
	var up atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		resp, err := http.Get(iss.JWKSURL)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(front.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpwasm.toml")
	const resource = "https://mcp.example.com/mcp"
	os.WriteFile(cfg, []byte(fmt.Sprintf("[server.auth]\nresource = %q\n[server.auth.oauth]\nissuer = %q\njwks_url = %q\n",
		resource, iss.URL, front.URL+"/jwks.json")), 0o600)
	url, _, log := httpServeCmd(t, "--config", cfg, fixture.Path(t, "echo"))
	if url == "" {
		t.Fatal("serve did not serve with the issuer down")
	}
	if !strings.Contains(log.String(), "level=ERROR") || !strings.Contains(log.String(), "could not fetch the issuer's JWKS") {
		t.Fatalf("the unreachable JWKS was not logged as an error:\n%s", log)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	resp := mcptest.Do(t, req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token, issuer down: %d, want 401", resp.StatusCode)
	}

	up.Store(true)
	cs, err := mcptest.Dial(url, iss.Sign(t, iss.Claims("alice", resource, "")))
	if err != nil {
		t.Fatalf("a valid token once the issuer is up: %v\n%s", err, log)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{"text": "hi"}}); err != nil || res.IsError {
		t.Fatalf("echo: %+v, %v", res, err)
	}
}
