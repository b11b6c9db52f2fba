package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each roots/list_changed makes the next call fetch the session's roots
// again (the server hands the notice to package mounts, whose
// TestRootsRefetchDoesNotLeak holds the cache to one watcher per session
// over 150 changes on a fake clock).
func TestRootsRefetchedAfterListChanged(t *testing.T) {
	grant, _ := fsTree(t)
	srv, _ := newServer(t, false, loadSpec{name: "conformance",
		cfg: plugin.Config{Grants: []plugin.Grant{{Path: grant, ReadOnly: true}}}})
	c := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil)
	c.AddRoots(&mcp.Root{URI: "file://" + grant})
	fetches := mcptest.CountRequests(c, "roots/list") // roots/list requests the server sent
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	servertest.Call(t, cs, "test_simple_text", map[string]any{})
	const rounds = 3
	for i := range rounds {
		// Another URI for the same folder: the client notifies
		// roots/list_changed (after go-sdk's 10ms coalescing delay).
		c.AddRoots(&mcp.Root{URI: "file://" + grant + strings.Repeat("/", i+2)})
		// Call until a call refetches the roots: the notification reaches
		// the server after go-sdk's delay, not at once.
		for want, n := fetches.Load()+1, 0; fetches.Load() < want; n++ {
			if n == 500 {
				t.Fatalf("round %d: 500 calls and none fetched the changed roots", i)
			}
			if res := servertest.Call(t, cs, "test_simple_text", map[string]any{}); res.IsError {
				t.Fatalf("call %d: %s", i, servertest.Text(res))
			}
		}
	}
}
