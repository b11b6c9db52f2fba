package mounts

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
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
		fetches := mcptest.CountRequests(c, "roots/list") // roots/list requests the server sent
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

// A client's roots list is the client's to make long: thousands of roots
// that are not local folders, or are outside every grant, are skipped with
// a warning naming how many (and a few), not a warning each, and only the
// first MaxRoots are resolved on the host's filesystem. What is skipped
// only narrows the mounts.
func TestRootsFloodBounded(t *testing.T) {
	base, err := plugin.Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	grant, outside := filepath.Join(base, "grant"), filepath.Join(base, "outside")
	os.Mkdir(grant, 0o755)
	os.Mkdir(outside, 0o755)
	var logs fixture.Buffer
	m := &Maker{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	lr := mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file://" + grant}}}
	for i := range 200 { // one folder outside the grant, under 200 URIs
		lr.Roots = append(lr.Roots, &mcp.Root{URI: "file://" + outside + strings.Repeat("/", i+1)})
	}
	for i := range 5000 {
		lr.Roots = append(lr.Roots, &mcp.Root{URI: fmt.Sprintf("https://example.com/%d\nlevel=ERROR msg=forged", i)})
	}
	lr.Roots = append(lr.Roots, &mcp.Root{URI: "file://" + grant}) // a local folder, past MaxRoots: not resolved
	raw, _ := json.Marshal(&lr)
	roots, err := m.Answer(raw)
	if err != nil || len(roots) != 201 {
		t.Fatalf("roots resolved: %d (%v), want the 201 local ones of the first %d", len(roots), err, MaxRoots)
	}
	got := m.For([]plugin.Grant{{Path: grant, ReadOnly: true}}, roots)
	if len(got) != 1 || got[0].Path != grant {
		t.Fatalf("mounts %+v, want the grant alone", got)
	}
	warned := strings.Count(logs.String(), "client root")
	if warned != 2 || strings.Count(logs.String(), "\n") != 2 {
		t.Fatalf("%d log lines about the client's roots, want two (not local, outside):\n%.2000s", warned, logs.String())
	}
	if !strings.Contains(logs.String(), "skipped=5001") || !strings.Contains(logs.String(), "past_limit=4946") || !strings.Contains(logs.String(), "outside=200") {
		t.Fatalf("the warnings do not say how many roots were skipped:\n%.2000s", logs.String())
	}
}
