package main

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/eventually"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
)

// httpServe starts the real binary serving HTTP on a free loopback port
// and returns its /mcp URL.
func httpServe(t *testing.T, args ...string) string {
	t.Helper()
	url, _, _ := httpServeCmd(t, args...)
	return url
}

// httpServeCmd is httpServe that also returns the process, to signal it,
// and its stderr so far.
func httpServeCmd(t testing.TB, args ...string) (string, *exec.Cmd, *fixture.Log) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--cache-dir", t.TempDir(), "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = testEnv(t)
	// A file the server writes itself: every line it logged before an
	// answer can be read once the answer is.
	log := fixture.NewLog(t)
	cmd.Stderr = log.File()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
		}
	})
	re := regexp.MustCompile(`url=(http://\S+/mcp)`)
	var url string
	if !eventually.Within(60*time.Second, func() bool {
		if m := re.FindStringSubmatch(log.String()); m != nil {
			url = m[1]
		}
		return url != ""
	}) {
		t.Fatalf("the server never said where it listens:\n%s", log)
	}
	return url, cmd, log
}

// The HTTP flags reach the server: --allowed-host, --max-sessions; and a
// foreign Origin is refused on GET.
func TestHTTPServeBounds(t *testing.T) {
	url := httpServe(t, "--allowed-host", "mcp.example.com", "--max-sessions", "1", fixture.Path(t, "echo"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	send := func(method, host, origin, session string) *http.Response {
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		}
		req, _ := http.NewRequestWithContext(ctx, method, url, body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp := mcptest.Do(t, req)
		return resp
	}
	first := send(http.MethodPost, "mcp.example.com", "", "")
	sid := first.Header.Get("Mcp-Session-Id")
	if first.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize with an allowed Host: %d, session %q", first.StatusCode, sid)
	}
	if got := send(http.MethodPost, "", "", "").StatusCode; got != http.StatusServiceUnavailable {
		t.Fatalf("a second session over --max-sessions 1: %d, want 503", got)
	}
	if got := send(http.MethodPost, "evil.example", "", "").StatusCode; got != http.StatusForbidden {
		t.Fatalf("Host evil.example: %d, want 403", got)
	}
	if got := send(http.MethodGet, "", "https://evil.example", sid).StatusCode; got != http.StatusForbidden {
		t.Fatalf("GET with a foreign Origin: %d, want 403", got)
	}
}
