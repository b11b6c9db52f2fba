package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
)

// echoVersions returns a runtime and a function loading a new version of
// the echo fixture, named svc, each time it is called, as a hot reload does.
func echoVersions(t *testing.T) (*plugin.Runtime, func() *plugin.Plugin) {
	t.Helper()
	rt := servertest.Runtime(t)
	return rt, func() *plugin.Plugin { return servertest.Plugin(t, rt, "echo", plugin.Config{Name: "svc"}) }
}

// TestRetireClosesReplaced: replacing a plugin again and again (Replace,
// Swap, Retire, as a hot reload does) closes every replaced version once
// its calls are done: a retired version cannot start a call (Close took
// all its slots) and the guest memory charged to the budget does not grow
// per reload. The tool keeps answering throughout.
func TestRetireClosesReplaced(t *testing.T) {
	ctx := context.Background()
	rt, load := echoVersions(t)
	cur := load()
	srv, reg := servertest.Serve(t, server.Options{Features: server.Features{Tools: true}}, cur)
	cs := connect(t, srv, nil)
	servertest.Call(t, cs, "echo", map[string]any{"text": "hi"})
	base := rt.MemoryStats()

	for i := 0; i < 3; i++ {
		next := load()
		e, err := registry.Read(ctx, next, registry.AddOptions{Unprefixed: true})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := reg.Replace(cur, e, registry.AddOptions{Unprefixed: true})
		if err != nil {
			t.Fatal(err)
		}
		if refused := srv.Publish(ch); len(refused) > 0 {
			t.Fatalf("swap refused: %v", refused[0].Err)
		}
		select {
		case <-srv.Retire(cur):
		case <-time.After(time.Minute):
			t.Fatalf("reload %d: the replaced plugin was not closed within a minute", i)
		}
		// A closed plugin holds all its slots: a call cannot start.
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		_, cerr := cur.Invoke(short, abi.ExportListTools, []byte(`{}`))
		cancel()
		if cerr == nil {
			t.Fatalf("reload %d: the retired plugin still runs", i)
		}
		cur = next
		if res := servertest.Call(t, cs, "echo", map[string]any{"text": "hi"}); res.IsError {
			t.Fatalf("reload %d: echo failed after the swap", i)
		}
	}
	if got := rt.MemoryStats(); got.Live > base.Live || got.Committed > base.Committed {
		t.Fatalf("after 3 reloads: %d memories live, %d bytes committed; after the first call: %d, %d",
			got.Live, got.Committed, base.Live, base.Committed)
	}
	t.Logf("memories live: %d -> %d after 3 reloads (%d -> %d bytes)", base.Live, rt.MemoryStats().Live, base.Committed, rt.MemoryStats().Committed)
}
