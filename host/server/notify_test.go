package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/internal/eventually"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type recorder struct {
	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
	logs     []*mcp.LoggingMessageParams
}

func (r *recorder) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			r.mu.Lock()
			r.progress = append(r.progress, req.Params)
			r.mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			r.mu.Lock()
			r.logs = append(r.logs, req.Params)
			r.mu.Unlock()
		},
	}
}

// settle waits until n notifications of a kind arrived (they race the result).
func (r *recorder) settle(t *testing.T, cond func() bool) {
	t.Helper()
	if !eventually.Within(10*time.Second, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return cond()
	}) {
		r.mu.Lock()
		defer r.mu.Unlock()
		t.Fatalf("notifications did not arrive: progress %d, logs %d", len(r.progress), len(r.logs))
	}
}

// TestProgressAndLog checks notify_progress and notify_logging_message in
// both protocol eras: the legacy one (logging/setLevel) and 2026-07-28
// (the level travels in each request's _meta).
func TestProgressAndLog(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "notify"})
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			rec := &recorder{}
			cs := connectVersion(t, srv, rec.options(), era)
			ctx := context.Background()
			callNotify := func(level string, token any) {
				t.Helper()
				params := &mcp.CallToolParams{Name: "notify", Arguments: map[string]any{}}
				if era == "2026-07-28" {
					params.Meta = mcp.Meta{mcp.MetaKeyLogLevel: level}
				} else if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
					t.Fatal(err)
				}
				if token != nil {
					params.SetProgressToken(token)
				}
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					t.Fatalf("notify: %v %v", err, res)
				}
			}
			callNotify("info", "tok-1")
			rec.settle(t, func() bool { return len(rec.progress) == 3 && len(rec.logs) == 1 })
			if p := rec.progress[2]; p.ProgressToken != "tok-1" || p.Progress != 3 || p.Total != 3 || p.Message != "three" {
				t.Fatalf("progress = %+v", p)
			}
			if l := rec.logs[0]; l.Level != "info" || l.Logger != "notify" || l.Data != "hello from the guest" {
				t.Fatalf("log = %+v", l)
			}
			// Without a progress token there is no progress; with the level
			// above info there is no log.
			callNotify("error", nil)
			callNotify("info", "tok-2") // a marker: its notifications arrive after the previous call's would have
			rec.settle(t, func() bool { return len(rec.progress) == 6 && len(rec.logs) == 2 })
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if rec.progress[3].ProgressToken != "tok-2" {
				t.Fatalf("a call without a progress token produced progress: %+v", rec.progress[3])
			}
		})
	}
}

// connectVersion connects a client that asks for a protocol version.
func connectVersion(t testing.TB, srv *server.Server, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, opts).
		Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

func TestLogFloodIsBounded(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "log_flood", cfg: plugin.Config{Timeout: 30 * time.Second}})
	rec := &recorder{}
	cs := connectVersion(t, srv, rec.options(), "2025-11-25")
	ctx := context.Background()
	cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"})
	if res := servertest.Call(t, cs, "log_flood", map[string]any{}); res.IsError {
		t.Fatal(servertest.Text(res))
	}
	cs.Ping(ctx, nil)
	rec.settle(t, func() bool { return len(rec.logs) >= 100 })
	time.Sleep(100 * time.Millisecond)
	rec.mu.Lock()
	n := len(rec.logs)
	rec.mu.Unlock()
	if n != 100 {
		t.Fatalf("client got %d log messages from one call; want the per-call limit, 100", n)
	}
}

// TestHTTPEdgeRefuses: the HTTP edge in front of the server refuses a
// browser's cross-site request (403) and a body over MaxBodyBytes (413).
func TestHTTPEdgeRefuses(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, c := range []struct {
		what    string
		o       httpserve.Options
		body    string
		headers map[string]string
		want    int
	}{
		{"foreign origin", httpserve.Options{}, initialize,
			map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"oversized body", httpserve.Options{MaxBodyBytes: 1 << 10},
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 4<<10) + `"}}`, nil, http.StatusRequestEntityTooLarge},
	} {
		srv, _ := newServer(t, false, loadSpec{name: "echo"})
		hs := httptest.NewServer(httpserve.Handler(srv, c.o))
		req, _ := mcptest.Post(context.Background(), hs.URL, strings.NewReader(c.body))
		for k, v := range c.headers {
			req.Header.Set(k, v)
		}
		resp := mcptest.Do(t, req)
		resp.Body.Close()
		hs.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.what, resp.StatusCode, c.want)
		}
	}
}

// TestNoGoroutineLeak runs every failure kind and checks the goroutine count
// returns to where it started.
func TestNoGoroutineLeak(t *testing.T) {
	names := []string{"spin", "sleep", "trap", "exit0", "guest_error", "bad_json", "stdout_flood"}
	var specs []loadSpec
	for _, n := range names {
		specs = append(specs, loadSpec{name: n, cfg: plugin.Config{Timeout: 300 * time.Millisecond}})
	}
	srv, _ := newServer(t, false, specs...)
	cs := connect(t, srv, nil)
	servertest.Call(t, cs, "trap", map[string]any{}) // warm up lazily started goroutines
	before := runtime.NumGoroutine()
	for range 3 {
		for _, n := range names {
			servertest.Call(t, cs, n, map[string]any{})
		}
	}
	eventually.Within(5*time.Second, func() bool { return runtime.NumGoroutine() <= before })
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// TestListChangedRefresh: a guest saying its tool list changed makes the
// host re-read it (with concurrency 1, so a re-read inside the call would
// deadlock) and notify the client.
func TestListChangedRefresh(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "list_changed", cfg: plugin.Config{Concurrency: 1}})
	changed := make(chan struct{}, 10)
	cs := connectVersion(t, srv, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}, "2025-11-25")
	if res := servertest.Call(t, cs, "list_changed", map[string]any{}); res.IsError {
		t.Fatal(servertest.Text(res))
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(lt.Tools) != 1 {
		t.Fatalf("after refresh: %v %v", lt, err)
	}
}

// TestNoProgressAfterCancel: progress a guest reports after its call was
// cancelled never reaches the client. Drain waits for the cancelled call
// to end (and, under -race, must not race the call it waits for).
func TestNoProgressAfterCancel(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "progress_late"})
	rec := &recorder{}
	cs := connectVersion(t, srv, rec.options(), "2025-11-25")
	params := &mcp.CallToolParams{Name: "progress_late", Arguments: map[string]any{}}
	params.SetProgressToken("late")
	// Without a cancel, the call does report its progress (so the check
	// below can fail).
	if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
		t.Fatalf("uncancelled call: %v %v", err, res)
	}
	rec.settle(t, func() bool { return len(rec.progress) == 1 })

	ctx, cancel := context.WithCancel(context.Background())
	go func() { servertest.WaitInFlight(t, srv, 1); cancel() }() // during the guest's 300 ms sleep
	if _, err := cs.CallTool(ctx, params); err == nil {
		t.Fatal("the cancelled call returned a result")
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	srv.Drain(dctx)
	cs.Ping(context.Background(), nil) // flush anything the server sent
	rec.mu.Lock()
	n := len(rec.progress)
	rec.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d progress notifications reached the client after cancellation", n-1)
	}
}

// TestGuestOutputAsLogs: what a guest prints reaches the client as debug
// log messages, bounded, and never the transport itself.
func TestGuestOutputAsLogs(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "stdout_flood"})
	rec := &recorder{}
	cs := connectVersion(t, srv, rec.options(), "2025-11-25")
	cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"})
	if res := servertest.Call(t, cs, "stdout_flood", map[string]any{}); res.IsError {
		t.Fatal(servertest.Text(res))
	}
	rec.settle(t, func() bool { return len(rec.logs) >= 1 })
	rec.mu.Lock()
	defer rec.mu.Unlock()
	l := rec.logs[0]
	if l.Logger != "stdout_flood/stdout" || l.Level != "debug" || len(l.Data.(string)) > 2100 {
		t.Fatalf("log = %s %s (%d bytes)", l.Logger, l.Level, len(l.Data.(string)))
	}
}

// go-sdk keeps every subscription (and logs its URI) until the session
// ends, so a session's subscriptions are bounded in number and in URI
// length; re-subscribing costs nothing and unsubscribing frees a place.
func TestSubscriptionsBounded(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	cs := connectVersion(t, srv, nil, "2025-11-25")
	ctx := context.Background()
	sub := func(uri string) error { return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}) }
	uri := func(i int) string { return fmt.Sprintf("test://template/%d/data", i) }
	if err := sub("test://template/" + strings.Repeat("x", 5000) + "/data"); err == nil || !strings.Contains(err.Error(), "long") {
		t.Fatalf("a 5 KB URI: %v, want a refusal saying it is too long", err)
	}
	for i := range 256 {
		if err := sub(uri(i)); err != nil {
			t.Fatalf("subscription %d: %v", i+1, err)
		}
	}
	if err := sub(uri(0)); err != nil {
		t.Fatalf("subscribing again to the same URI: %v", err)
	}
	if err := sub(uri(256)); err == nil || !strings.Contains(err.Error(), "subscriptions") {
		t.Fatalf("subscription 257: %v, want a refusal naming the limit", err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri(3)}); err != nil {
		t.Fatal(err)
	}
	if err := sub(uri(256)); err != nil {
		t.Fatalf("after an unsubscribe: %v", err)
	}
}
