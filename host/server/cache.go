package server

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caching hints (protocol 2026-07-28, SEP-2549): every tools/list,
// prompts/list, resources/list, resources/templates/list and resources/read
// result carries ttlMs, how long a client may keep it, and cacheScope,
// whether a shared cache may serve it to others ("public") or only the
// requester's client may keep it ("private").
//
//   - Lists are the host's: it serves them from what it read at load, and
//     knows they change only on a hot reload or a plugin's list_changed,
//     both of which notify clients. Their ttlMs is Options.ListTTL (default
//     0, immediately stale: a stateless client that does not listen for
//     notifications would otherwise keep a list a reload replaced).
//   - A read's hints are the plugin's (its ReadResourceResult may carry
//     ttlMs and cacheScope), clamped: a negative ttlMs is 0, one above
//     MaxCacheTTL is MaxCacheTTL, and a cacheScope other than "public" or
//     "private" is "private".
//   - Whatever answers an authenticated request is "private": lists are
//     filtered by the token's scopes, and a read is allowed by them, so a
//     shared cache must not hand either to someone else.
//   - So is a read that carries inputResponses or a requestState (a
//     2026-07-28 round trip): it was computed from what this client
//     answered (its roots chose the guest's mounts; its elicitation or
//     sampling answers the guest's questions), which a shared cache must
//     neither hand to another client nor let one client plant for others.

// MaxCacheTTL bounds every ttlMs the server sends.
const MaxCacheTTL = 24 * time.Hour

// Cache scopes.
const (
	scopePublic  = "public"
	scopePrivate = "private"
)

// setCacheable is go-sdk's ServerOptions.SetCacheable: it settles the hints
// of every cacheable result, after its handler ran. It must not call back
// into the go-sdk server (go-sdk holds its lock for lists).
func (s *Server) setCacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	switch req.(type) {
	case *mcp.ListToolsRequest, *mcp.ListPromptsRequest, *mcp.ListResourcesRequest, *mcp.ListResourceTemplatesRequest:
		c.TTLMs = clampTTL(int(s.opts.ListTTL / time.Millisecond))
		c.CacheScope = scopePublic
	default: // resources/read (the plugin's), server/discover (go-sdk's)
		c.TTLMs = clampTTL(c.TTLMs)
		if c.CacheScope != "" && c.CacheScope != scopePublic {
			c.CacheScope = scopePrivate
		}
	}
	if tokenInfo(req) != nil || answered(req) {
		c.CacheScope = scopePrivate
	}
}

// answered reports whether a resources/read carries the client's answers
// to a round trip.
func answered(req mcp.Request) bool {
	r, ok := req.(*mcp.ReadResourceRequest)
	return ok && r.Params != nil && (len(r.Params.InputResponses) > 0 || r.Params.RequestState != "")
}

// clampTTL bounds a ttlMs to [0, MaxCacheTTL].
func clampTTL(ms int) int {
	if ms < 0 {
		return 0
	}
	if limit := int(MaxCacheTTL / time.Millisecond); ms > limit {
		return limit
	}
	return ms
}
