package server_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
)

// TestListChangedWhilePolling: a client calling tools/list all the time
// during hot swaps got no notifications/tools/list_changed in most runs (a
// list inside go-sdk's 10ms notice delay made the server think the session
// had seen the change). 100 swaps (replacements, and removals each followed
// by the plugin's return) under a client that never stops listing: every
// one is notified.
func TestListChangedWhilePolling(t *testing.T) {
	ctx := context.Background()
	rt, version := echoVersions(t)
	opts := registry.AddOptions{Unprefixed: true}
	load := func() *registry.Entry {
		e, err := registry.Read(ctx, version(), opts)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	reg := registry.New()
	first := load()
	if _, err := reg.Append(first, opts); err != nil {
		t.Fatal(err)
	}
	srv := server.New(reg, server.Options{Name: "test", Features: server.Features{Tools: true}})
	srv.AddEntry(first)
	srv.Ready()
	t.Cleanup(func() { reg.Close(ctx); rt.Close(ctx) })

	changed := make(chan struct{}, 16)
	// A client before 2026-07-28 (whose subscriptions/listen asks for its
	// notices, which go-sdk then sends as they come).
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "poller"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	stop := make(chan struct{})
	var polls sync.WaitGroup
	polls.Add(1)
	go func() {
		defer polls.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			cs.ListTools(ctx, nil)
		}
	}()
	defer func() { close(stop); polls.Wait() }()

	expect := func(what string, i int) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("swap %d (%s): no notifications/tools/list_changed within 10s while the client polled", i, what)
		}
	}
	swap := func(ch *registry.Changes, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if refused := srv.Publish(ch); len(refused) > 0 {
			t.Fatal(refused[0].Err)
		}
	}
	cur := first.Plugin
	for i := 0; i < 100; i++ {
		if i%2 == 0 {
			next := load()
			swap(reg.Replace(cur, next, opts))
			srv.Retire(cur)
			cur = next.Plugin
			expect("replace", i)
			continue
		}
		swap(reg.Remove(cur), nil)
		srv.Retire(cur)
		expect("remove", i)
		next := load()
		swap(reg.Append(next, opts))
		cur = next.Plugin
		expect("add back", i)
	}
}
