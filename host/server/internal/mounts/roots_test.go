package mounts

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each roots/list_changed makes the next fetch ask the session's roots
// again; the watcher that forgets them when the session ends must be one
// per session, not one per fetch, or a client alternating list_changed and
// calls grows the server's goroutines without bound. Fake clock: go-sdk
// coalesces the client's notice for 10 ms.
func TestRootsRefetchDoesNotLeak(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		dir := t.TempDir()
		m := &Maker{Logger: slog.New(slog.DiscardHandler)}
		srv := mcp.NewServer(&mcp.Implementation{Name: "s"}, &mcp.ServerOptions{
			RootsListChangedHandler: func(_ context.Context, r *mcp.RootsListChangedRequest) { m.Changed(r.Session) }})
		c := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil)
		c.AddRoots(&mcp.Root{URI: "file://" + dir})
		var fetches atomic.Int32 // roots/list requests the server sent
		c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "roots/list" {
					fetches.Add(1)
				}
				return next(ctx, method, req)
			}
		})
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Session(ctx, ss); err != nil {
			t.Fatal(err)
		}
		before := runtime.NumGoroutine()
		const rounds = 150
		for i := range rounds {
			// Another URI for the same folder: the client notifies
			// roots/list_changed after go-sdk's delay.
			c.AddRoots(&mcp.Root{URI: "file://" + dir + strings.Repeat("/", i+2)})
			time.Sleep(time.Second)
			synctest.Wait()
			roots, err := m.Session(ctx, ss)
			if err != nil || len(roots) != i+2 {
				t.Fatalf("round %d: roots %v, %v", i, roots, err)
			}
		}
		if n := fetches.Load(); n != rounds+1 {
			t.Fatalf("%d fetches for %d changes: the roots were not asked again", n, rounds)
		}
		if grown := runtime.NumGoroutine() - before; grown > 2 {
			t.Fatalf("%d goroutines more after %d roots changes and fetches on one session", grown, rounds)
		}
		cs.Close()
		ss.Close()
		ss.Wait()
		synctest.Wait()
		if len(m.watched) != 0 || len(m.roots) != 0 {
			t.Fatalf("an ended session is remembered: %d watched, %d cached", len(m.watched), len(m.roots))
		}
	})
}
