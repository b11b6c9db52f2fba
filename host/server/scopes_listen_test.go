package server_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// In 2026-07-28 a client subscribes to resources through
// subscriptions/listen (resourceSubscriptions), not resources/subscribe:
// the scopes gate it the same way, so a token without a plugin's scope
// cannot watch that plugin's resources.
func TestScopesGateSubscriptionsListen(t *testing.T) {
	toks := servertest.StaticTokens(t, "full 0123456789abcdef0123 conf\nnone fedcba9876543210fedc\n")
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	srv.RequireScopes(bearer.Policy{Plugins: map[string]string{"conformance": "conf"}})
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Stateless: true, Access: httpserve.AccessOptions{Verifier: toks.Verify}}) + "/mcp"
	first := func(token string) string { return listenFirst(t, url, token, "test://static-text") }
	if got := first("0123456789abcdef0123"); !strings.Contains(got, "subscriptions/acknowledged") {
		t.Fatalf("with the scope: %s, want the acknowledgement", got)
	}
	if got := first("fedcba9876543210fedc"); !strings.Contains(got, `"code":-31403`) || !strings.Contains(got, `scope \"conf\"`) {
		t.Fatalf("without the scope: %s, want error -31403 naming the scope", got)
	}
}

// listenFirst sends a raw 2026-07-28 subscriptions/listen for uri (with
// the bearer token, if any) and returns the first message the server
// answers it with: its acknowledgement, or an error.
func listenFirst(t *testing.T, url, token, uri string) string {
	t.Helper()
	params := map[string]any{
		"notifications": map[string]any{"resourceSubscriptions": []string{uri}},
		"_meta": map[string]any{
			mcp.MetaKeyProtocolVersion:    "2026-07-28",
			mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
			mcp.MetaKeyClientCapabilities: map[string]any{},
		},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := strings.TrimPrefix(sc.Text(), "data:"); strings.Contains(line, `"jsonrpc"`) {
			return line
		}
	}
	return ""
}
