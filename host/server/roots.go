package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/internal/clip"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server/internal/mounts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Filesystem access is granted by the operator and narrowed by the client:
// a plugin's mounts are the intersection of its grants (config, --root) and
// the client's roots. A client without roots gets the grants; a root outside
// every grant is ignored with a warning. Calls to plugins without grants
// never ask for roots.

// sessionRoots caches each legacy session's roots until the client says
// they changed.
type sessionRoots struct {
	mu    sync.Mutex
	roots map[*mcp.ServerSession][]string
	// watched are the sessions with a goroutine that forgets their roots
	// when they end: one per session, however often the roots change.
	watched map[*mcp.ServerSession]bool
}

func (s *Server) rootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	s.roots.mu.Lock()
	delete(s.roots.roots, req.Session)
	s.roots.mu.Unlock()
}

// callMounts returns the folders a call of p may use: its grants narrowed
// by the client's roots. ok is false when a 2026-07-28 call must first ask
// the client for its roots (rt then holds what to ask). A request that
// cannot make round trips (rt nil) in 2026-07-28 gets the grants. Waiting
// for the client's roots counts against the call's time limit: a client
// that never answers cannot hold the call.
func (s *Server) callMounts(ctx context.Context, p *plugin.Plugin, session *mcp.ServerSession,
	caps *mcp.ClientCapabilities, modern bool, rt *roundTrip) (_ []abi.Mount, ok bool, err error) {
	grants := p.Config().Grants
	if len(grants) == 0 {
		return nil, true, nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.Config().Timeout)
	defer cancel()
	roots, ok, err := s.clientRoots(ctx, session, caps, modern, rt)
	if !ok || err != nil {
		return nil, ok, err
	}
	ms, outside := mounts.Narrow(grants, roots)
	if len(outside) > 0 {
		s.logger.Warn("ignoring client roots outside every folder the operator granted",
			"outside", len(outside), "examples", outside[:min(len(outside), 4)])
	}
	return ms, true, nil
}

// clientRoots returns the client's roots as canonical paths, or nil when the
// client has no roots capability (meaning: no narrowing). For 2026-07-28
// requests, roots come from the round trip's answers; ok is false when they
// must first be requested.
func (s *Server) clientRoots(ctx context.Context, session *mcp.ServerSession, caps *mcp.ClientCapabilities,
	modern bool, rt *roundTrip) (roots []string, ok bool, err error) {
	if caps == nil || caps.RootsV2 == nil {
		return nil, true, nil
	}
	if modern {
		if rt == nil {
			return nil, true, nil
		}
		raw, found := rt.known(rootsInputID)
		if !found {
			return nil, false, nil
		}
		var lr mcp.ListRootsResult
		if err := json.Unmarshal(raw, &lr); err != nil {
			return nil, false, fmt.Errorf("the client's roots answer is not a roots list: %v", err)
		}
		return s.canonicalRoots(&lr), true, nil
	}
	if session == nil {
		return nil, true, nil
	}
	roots, err = s.sessionRootsFor(ctx, session)
	return roots, err == nil, err
}

// sessionRootsFor returns a legacy session's roots, from the cache or by
// asking the client.
func (s *Server) sessionRootsFor(ctx context.Context, ss *mcp.ServerSession) (roots []string, err error) {
	s.roots.mu.Lock()
	cached, hit := s.roots.roots[ss]
	s.roots.mu.Unlock()
	if hit {
		return cached, nil
	}
	lr, err := ss.ListRoots(ctx, nil)
	if err != nil {
		return nil, explain("list_roots", err)
	}
	roots = s.canonicalRoots(lr)
	s.roots.mu.Lock()
	if s.roots.roots == nil {
		s.roots.roots = map[*mcp.ServerSession][]string{}
		s.roots.watched = map[*mcp.ServerSession]bool{}
	}
	if !s.roots.watched[ss] {
		// Forget the session's roots when it ends. (Not keyed on the
		// cache entry: roots/list_changed deletes that, and a client
		// alternating it with calls would start a goroutine per call.)
		s.roots.watched[ss] = true
		go func(ss *mcp.ServerSession) {
			ss.Wait()
			s.roots.mu.Lock()
			delete(s.roots.roots, ss)
			delete(s.roots.watched, ss)
			s.roots.mu.Unlock()
		}(ss)
	}
	s.roots.roots[ss] = roots
	s.roots.mu.Unlock()
	return roots, nil
}

// rootsInputID keys the roots request in a 2026-07-28 round trip.
const rootsInputID = "mcpwasm-roots"

// maxRoots bounds the client roots resolved on the host's filesystem; the
// rest are skipped (which only narrows the mounts).
const maxRoots = 256

// canonicalRoots turns file:// root URIs into canonical host paths. Roots
// that are not local folders, and those past maxRoots, are skipped with one
// warning naming how many and a few of them (the list is the client's, as
// long as it likes). A client that lists no roots at all does not narrow
// (nil): many clients declare the roots capability without ever setting one.
func (s *Server) canonicalRoots(lr *mcp.ListRootsResult) []string {
	if len(lr.Roots) == 0 {
		return nil
	}
	out := []string{}
	var examples []string
	for _, r := range lr.Roots[:min(len(lr.Roots), maxRoots)] {
		reason := "not a local file:// URI"
		if u, err := url.Parse(r.URI); err == nil && u.Scheme == "file" && (u.Host == "" || u.Host == "localhost") {
			p, err := plugin.Canonical(u.Path)
			if err == nil {
				out = append(out, p)
				continue
			}
			reason = err.Error()
		}
		if len(examples) < 4 {
			examples = append(examples, clip.String(r.URI, clip.Log)+": "+reason)
		}
	}
	if n := len(lr.Roots) - len(out); n > 0 {
		args := []any{"skipped", n, "of", len(lr.Roots), "examples", examples}
		if len(lr.Roots) > maxRoots {
			args = append(args, "past_limit", len(lr.Roots)-maxRoots, "limit", maxRoots)
		}
		s.logger.Warn("ignoring client roots that are not local folders", args...)
	}
	return out
}
