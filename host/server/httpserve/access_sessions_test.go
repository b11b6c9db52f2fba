package httpserve_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/eventually"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// max_sessions is the server's; one principal may hold only
// PrincipalSessions of them, so a client opening sessions in a loop cannot
// take every place (for the session idle timeout) from everyone else. A
// place comes back when one of its sessions ends.
func TestHTTPSessionsPerPrincipal(t *testing.T) {
	toks := servertest.StaticTokens(t, "a 0123456789abcdef0123\nb fedcba9876543210fedc\n")
	srv := servertest.Audited(t, &servertest.Events{})
	url := servertest.ServeHTTP(t, srv, httpserve.Options{MaxSessions: 10,
		Access: httpserve.AccessOptions{Verifier: toks.Verify, PrincipalSessions: 2}}) + "/mcp"
	var open []*mcp.ClientSession
	for i := range 2 {
		cs, err := servertest.ClientWith(url, "0123456789abcdef0123")
		if err != nil {
			t.Fatalf("a's session %d: %v", i+1, err)
		}
		open = append(open, cs)
	}
	if cs, err := servertest.ClientWith(url, "0123456789abcdef0123"); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
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
	b, err := servertest.ClientWith(url, "fedcba9876543210fedc")
	if err != nil {
		t.Fatalf("b, while a is at its limit: %v", err)
	}
	b.Close()
	open[0].Close()
	if !eventually.Within(30*time.Second, func() bool {
		var cs *mcp.ClientSession
		if cs, err = servertest.ClientWith(url, "0123456789abcdef0123"); err == nil {
			cs.Close()
		}
		return err == nil
	}) {
		t.Fatalf("a's place never came back after one of its sessions ended: %v", err)
	}
	open[1].Close()
}
