package server_test

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A read answered with what one client supplied (its inputResponses and
// requestState: here its roots, which chose the guest's mounts) is that
// client's: it is "private" whatever the plugin declared, so no shared
// cache serves it to another client, nor lets a hostile client's answers
// reach others. The same read without a round trip keeps the plugin's
// "public".
func TestCacheScopePrivateAfterRoundTrip(t *testing.T) {
	grant, _ := fsTree(t)
	srv, _ := newServer(t, false, loadSpec{name: "conformance",
		cfg: plugin.Config{Grants: []plugin.Grant{{Path: grant, ReadOnly: true}}}})
	connectRoots := func(roots bool) *mcp.ClientSession {
		opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
		if roots {
			opts.Capabilities = &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}
		}
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st); err != nil {
			t.Fatal(err)
		}
		c := mcp.NewClient(&mcp.Implementation{Name: "c"}, opts)
		if roots {
			c.AddRoots(&mcp.Root{URI: "file://" + grant})
		}
		cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	const uri = "test://cache/5000/public"
	for roots, want := range map[bool]string{false: "public", true: "private"} {
		res, err := connectRoots(roots).ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("roots %v: %v %+v", roots, err, res)
		}
		if res.CacheScope != want || res.TTLMs != 5000 {
			t.Errorf("roots %v (round trip %v): ttlMs %d, cacheScope %q; want 5000, %q", roots, roots, res.TTLMs, res.CacheScope, want)
		}
	}
}
