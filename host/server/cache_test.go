package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listHints lists the four lists and returns each result's hints.
func listHints(t *testing.T, cs *mcp.ClientSession) map[string]mcp.Cacheable {
	t.Helper()
	l := mcptest.ListAll(t, cs)
	return map[string]mcp.Cacheable{"tools/list": l.Tools.Cacheable, "prompts/list": l.Prompts.Cacheable,
		"resources/list": l.Resources.Cacheable, "resources/templates/list": l.Templates.Cacheable}
}

// The host sets the hints of the four lists: ttlMs from ListTTL (0 by
// default, clamped to MaxCacheTTL), cacheScope public for an
// unauthenticated client.
func TestListCacheHints(t *testing.T) {
	limit := int(server.MaxCacheTTL / time.Millisecond)
	for _, c := range []struct {
		ttl  time.Duration
		want int
	}{{0, 0}, {90 * time.Second, 90_000}, {-time.Second, 0}, {10_000 * time.Hour, limit}} {
		t.Run(fmt.Sprint(c.ttl), func(t *testing.T) {
			srv, _ := newServerWith(t, false, server.Options{Name: "test", ListTTL: c.ttl}, plugin.RuntimeOptions{},
				loadSpec{name: "conformance"})
			for _, version := range []string{"2026-07-28", "2025-11-25"} {
				for method, h := range listHints(t, connectVersion(t, srv, nil, version)) {
					if h.TTLMs != c.want || h.CacheScope != "public" {
						t.Errorf("%s %s: ttlMs %d, cacheScope %q; want %d, public", version, method, h.TTLMs, h.CacheScope, c.want)
					}
				}
			}
		})
	}
}

// A plugin declares the hints of its reads; hostile values are clamped,
// and a ttlMs no integer holds is a malformed result, a JSON-RPC error
// naming the plugin, after which the server keeps serving.
func TestReadCacheHints(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	cs := connect(t, srv, nil)
	limit := int(server.MaxCacheTTL / time.Millisecond)
	for _, c := range []struct {
		ttl, scope string
		wantTTL    int
		wantScope  string
	}{
		{"5000", "public", 5000, "public"},
		{"5000", "private", 5000, "private"},
		{"-5", "public", 0, "public"},
		{"-9223372036854775808", "public", 0, "public"},
		{"9223372036854775807", "public", limit, "public"},
		{"86400001", "public", limit, "public"},
		{"10", "shared", 10, "private"},
		{"10", "PUBLIC", 10, "private"},
	} {
		uri := "test://cache/" + c.ttl + "/" + c.scope
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Errorf("%s: %v", uri, err)
			continue
		}
		if res.TTLMs != c.wantTTL || res.CacheScope != c.wantScope {
			t.Errorf("%s: ttlMs %d, cacheScope %q; want %d, %q", uri, res.TTLMs, res.CacheScope, c.wantTTL, c.wantScope)
		}
	}
	// Not integers go-sdk decodes: clamped too, never a failed read.
	for ttl, want := range map[string]int{"1e30": limit, "1.5": 1, "-2.5e3": 0, "true": 0, "1e400": limit} {
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://cache/" + ttl + "/public"})
		if err != nil || res.TTLMs != want || len(res.Contents) != 1 {
			t.Errorf("ttlMs %s: %v %+v, want ttlMs %d", ttl, err, res, want)
		}
	}
	if res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://static-text"}); err != nil || len(res.Contents) != 1 {
		t.Fatalf("after the malformed reads: %v", err)
	}
}

// Whatever answers an authenticated request is private: its lists are
// filtered by the token's scopes and its reads allowed by them, so no
// shared cache may serve them to another user; the same server's answers
// to an unauthenticated client stay public.
func TestCacheScopePrivateWhenAuthenticated(t *testing.T) {
	srv, _ := newServerWith(t, false, server.Options{Name: "test", ListTTL: time.Minute}, plugin.RuntimeOptions{},
		loadSpec{name: "conformance"})
	url := serveScoped(t, srv, "full 0123456789abcdef0123 conf\n", confScope, httpserve.Options{})
	full := mcptest.Connect(t, url, "0123456789abcdef0123")
	for method, h := range listHints(t, full) {
		if h.CacheScope != "private" || h.TTLMs != 60_000 {
			t.Errorf("authenticated %s: ttlMs %d, cacheScope %q; want 60000, private", method, h.TTLMs, h.CacheScope)
		}
	}
	for _, uri := range []string{"test://static-text", "test://cache/5000/public"} {
		res, err := full.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil || res.CacheScope != "private" {
			t.Errorf("authenticated read of %s: %v, cacheScope %q; want private", uri, err, res.CacheScope)
		}
	}
	for method, h := range listHints(t, connect(t, srv, nil)) {
		if h.CacheScope != "public" {
			t.Errorf("unauthenticated %s: cacheScope %q, want public", method, h.CacheScope)
		}
	}
}

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
