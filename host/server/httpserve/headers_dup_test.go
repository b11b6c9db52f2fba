package httpserve_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
)

// TestRepeatedHeadersRefused: a request with two Authorization headers was
// served as the first token's principal (bob's then alice's token ran as
// bob; a valid then a wrong token got 200), where a proxy reading the last
// would disagree. Two Authorization, Mcp-Session-Id or MCP-Protocol-Version
// headers now get 400, and a single valid token still gets in.
func TestRepeatedHeadersRefused(t *testing.T) {
	toks := servertest.StaticTokens(t, "bob 0123456789abcdef0123\nalice fedcba9876543210fedc\n")
	srv := server.New(registry.New(), server.Options{Name: "dup", Features: server.Features{Tools: true}})
	srv.AddNativeEcho()
	srv.Ready()
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Access: httpserve.AccessOptions{Verifier: toks.Verify}}) + "/mcp"

	send := func(headers [][2]string) (int, string) {
		req := initRequest(t, url, "")
		for _, h := range headers {
			req.Header.Add(h[0], h[1])
		}
		resp, body := do(t, req)
		resp.Body.Close()
		return resp.StatusCode, body
	}
	const bob, alice, wrong = "Bearer 0123456789abcdef0123", "Bearer fedcba9876543210fedc", "Bearer wrong-token-0000000000"
	if code, body := send([][2]string{{"Authorization", bob}}); code != http.StatusOK {
		t.Fatalf("one valid token: %d %s", code, body)
	}
	for name, hs := range map[string][][2]string{
		"bob then alice":        {{"Authorization", bob}, {"Authorization", alice}},
		"valid then wrong":      {{"Authorization", bob}, {"Authorization", wrong}},
		"wrong then valid":      {{"Authorization", wrong}, {"Authorization", bob}},
		"two session ids":       {{"Authorization", bob}, {"Mcp-Session-Id", "a"}, {"Mcp-Session-Id", "b"}},
		"two protocol versions": {{"Authorization", bob}, {"MCP-Protocol-Version", "2025-06-18"}, {"MCP-Protocol-Version", "2025-11-25"}},
	} {
		code, body := send(hs)
		if code != http.StatusBadRequest || !strings.Contains(body, "more than one") {
			t.Errorf("%s: %d %s, want 400 naming the repeated header", name, code, body)
		}
	}
}
