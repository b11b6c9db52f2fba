package httpserve_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/internal/eventually"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bareServer is a server with no plugins: the HTTP bounds need none.
func bareServer(t *testing.T) *server.Server {
	t.Helper()
	srv := server.New(registry.New(), server.Options{Name: "test"})
	srv.Ready()
	return srv
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{},"clientInfo":{"name":"raw","version":"1"}%s}}`

func initRequest(t *testing.T, url, pad string) *http.Request {
	t.Helper()
	req, err := mcptest.Post(context.Background(), url, strings.NewReader(fmt.Sprintf(initBody, pad)))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode >= 300 { // an SSE stream would not end: read only errors
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, ""
}

// A foreign Origin is refused on GET too: the SSE stream carries the
// session's messages.
func TestHTTPGetForeignOriginRefused(t *testing.T) {
	hs := httptest.NewServer(httpserve.Handler(bareServer(t), httpserve.Options{}))
	t.Cleanup(hs.Close)
	resp, _ := do(t, initRequest(t, hs.URL, ""))
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	get := func(origin string) int {
		req, _ := http.NewRequest(http.MethodGet, hs.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, _ := do(t, req)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get("https://evil.example"); got != http.StatusForbidden {
		t.Fatalf("GET with a foreign Origin: %d, want 403", got)
	}
	if got := get(""); got != http.StatusOK {
		t.Fatalf("GET without Origin: %d, want 200", got)
	}
}

// AllowedHosts decides the Host headers accepted, also where go-sdk's
// loopback rule does not apply (a request that did not come through a
// loopback listener, as on a public bind).
func TestHTTPAllowedHosts(t *testing.T) {
	h := httpserve.Handler(bareServer(t), httpserve.Options{AllowedHosts: []string{"mcp.example.com"}})
	serve := func(host string) int {
		req := initRequest(t, "http://"+host+"/mcp", "")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if got := serve("evil.example"); got != http.StatusForbidden {
		t.Fatalf("Host evil.example on a public bind: %d, want 403", got)
	}
	if got := serve("mcp.example.com:8080"); got != http.StatusOK {
		t.Fatalf("Host mcp.example.com:8080: %d, want 200", got)
	}
	// On a loopback listener, a listed name is accepted (go-sdk alone
	// refuses every non-loopback Host there), and so is a loopback Host.
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	// The list adds to the loopback names, it does not replace them
	// (docs/config.md, allowed_hosts): localhost stays accepted over
	// loopback, and only there.
	if got := serve("localhost"); got != http.StatusForbidden {
		t.Fatalf("Host localhost on a public bind: %d, want 403", got)
	}
	for host, want := range map[string]int{"mcp.example.com": 200, "evil.example": 403, hs.Listener.Addr().String(): 200, "localhost": 200} {
		req := initRequest(t, hs.URL, "")
		req.Host = host
		if resp, body := do(t, req); resp.StatusCode != want {
			t.Errorf("Host %s over loopback: %d %s, want %d", host, resp.StatusCode, body, want)
		}
	}
}

// Sessions are capped; a session that ends frees its place.
func TestHTTPSessionCap(t *testing.T) {
	srv := bareServer(t)
	hs := httptest.NewServer(httpserve.Handler(srv, httpserve.Options{MaxSessions: 2}))
	t.Cleanup(hs.Close)
	connect := func() (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	}
	var sessions []*mcp.ClientSession
	for range 2 {
		cs, err := connect()
		if err != nil {
			t.Fatalf("session %d of 2: %v", len(sessions)+1, err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions = append(sessions, cs)
	}
	if cs, err := connect(); err == nil {
		cs.Close()
		t.Fatal("a third session was accepted over a cap of 2")
	} else if !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("third session: %v, want 503", err)
	}
	resp, body := do(t, initRequest(t, hs.URL, ""))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Mcp-Session-Id") != "" ||
		!strings.Contains(body, "limit of 2 sessions") {
		t.Fatalf("raw initialize over the cap: %d %q, want 503 and no session", resp.StatusCode, body)
	}
	sessions[0].Close()
	var err error
	if !eventually.Within(10*time.Second, func() bool {
		var cs *mcp.ClientSession
		if cs, err = connect(); err == nil {
			cs.Close()
		}
		return err == nil
	}) {
		t.Fatalf("no session accepted after one closed: %v", err)
	}
}

// A session keeps its initialize params: large ones are refused.
func TestHTTPInitializeParamsCapped(t *testing.T) {
	srv := bareServer(t)
	hs := httptest.NewServer(httpserve.Handler(srv, httpserve.Options{}))
	t.Cleanup(hs.Close)
	pad := `,"pad":"` + strings.Repeat("x", 100<<10) + `"`
	resp, body := do(t, initRequest(t, hs.URL, pad))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "initialize params") {
		t.Fatalf("initialize with 100 KiB params: %d %q, want 400 naming the limit", resp.StatusCode, body)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatal("a session was created")
	}
	for range srv.MCP().Sessions() {
		t.Fatal("a session is live")
	}
}

// rawPost opens a connection and sends POST headers declaring n body bytes,
// followed by the first part of the body.
func rawPost(t *testing.T, addr string, n int, part string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", addr, n, part)
	return c
}

// status reads a response's status code from c, waiting at most wait; 0
// means no response came (or the connection closed without one).
func status(c net.Conn, wait time.Duration) int {
	c.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A declared length over the limit is answered 413 without waiting for the
// body.
func TestHTTPBodyTooLargeAnsweredBeforeReading(t *testing.T) {
	hs := httptest.NewServer(httpserve.Handler(bareServer(t), httpserve.Options{MaxBodyBytes: 1 << 20}))
	t.Cleanup(hs.Close)
	c := rawPost(t, hs.Listener.Addr().String(), 10<<20, "")
	if got := status(c, 10*time.Second); got != http.StatusRequestEntityTooLarge {
		t.Fatalf("10 MiB declared, nothing sent: status %d, want 413 at once", got)
	}
}

// The bytes of bodies in flight are bounded: while one request holds most
// of the budget, another that does not fit is refused with 503.
func TestHTTPBodyBytesInFlightBounded(t *testing.T) {
	hs := httptest.NewServer(httpserve.Handler(bareServer(t), httpserve.Options{MaxBodyBytes: 1 << 20, MaxBodyBytesInFlight: 1 << 20}))
	t.Cleanup(hs.Close)
	addr := hs.Listener.Addr().String()
	deadline := time.Now().Add(10 * time.Second)
	for {
		// A holds 800 KiB of the budget, its body still coming. Should B
		// reach the server first, A is the one refused: try again.
		a := rawPost(t, addr, 800<<10, `{"jsonrpc"`)
		time.Sleep(50 * time.Millisecond)
		b := rawPost(t, addr, 500<<10, "")
		got := status(b, 2*time.Second)
		a.Close()
		b.Close()
		if got == http.StatusServiceUnavailable {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a 500 KiB request while 800 KiB of a 1 MiB budget were in flight: status %d, want 503", got)
		}
	}
}

// A body trickling in is cut once it falls behind the minimum rate.
func TestHTTPSlowBodyCut(t *testing.T) {
	hs := httptest.NewServer(httpserve.Handler(bareServer(t), httpserve.Options{BodyGrace: 300 * time.Millisecond, MinBodyRate: 1 << 10}))
	t.Cleanup(hs.Close)
	c := rawPost(t, hs.Listener.Addr().String(), 4096, "{")
	stop := make(chan struct{})
	defer close(stop)
	go func() { // one byte every 100 ms: 10 bytes/s
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	if got := status(c, 10*time.Second); got != http.StatusRequestTimeout {
		t.Fatalf("slow body: status %d, want 408 (0: still held after 10s)", got)
	}
}

// serveOn runs httpserve.Serve on a loopback port until the test ends.
func serveOn(t *testing.T, o httpserve.Options) string {
	t.Helper()
	ln, err := httpserve.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpserve.Serve(ctx, bareServer(t), ln, o) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

func get404(t *testing.T, c net.Conn) {
	t.Helper()
	fmt.Fprintf(c, "GET /nothing HTTP/1.1\r\nHost: %s\r\n\r\n", c.RemoteAddr())
}

// An idle keep-alive connection is closed.
func TestHTTPIdleConnectionClosed(t *testing.T) {
	addr := serveOn(t, httpserve.Options{IdleTimeout: 300 * time.Millisecond})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	get404(t, c)
	r := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatalf("idle keep-alive connection: %v, want EOF (closed by the server)", err)
	}
}

// At most MaxConns connections are served: the next waits for a free one.
func TestHTTPConnectionCap(t *testing.T) {
	addr := serveOn(t, httpserve.Options{MaxConns: 1})
	c1, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	get404(t, c1)
	if got := status(c1, 10*time.Second); got != http.StatusNotFound {
		t.Fatalf("first connection: %d", got)
	}
	c2, err := net.Dial("tcp", addr) // queued by the kernel, not served
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	get404(t, c2)
	if got := status(c2, 300*time.Millisecond); got != 0 {
		t.Fatalf("second connection served (%d) while the first held the only slot", got)
	}
	c1.Close()
	if got := status(c2, 10*time.Second); got != http.StatusNotFound {
		t.Fatalf("second connection after the first closed: %d, want 404", got)
	}
}

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
