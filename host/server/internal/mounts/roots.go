package mounts

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"sync"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxRoots bounds the client roots resolved on the host's filesystem; the
// rest are skipped (which only narrows the mounts).
const MaxRoots = 256

// Maker makes the mounts of calls: it learns the client's roots (from a
// legacy session, cached until the client says they changed, or from a
// 2026-07-28 round trip's answer), canonicalizes them, and narrows the
// plugin's grants by them. It is the one place roots narrow anything.
type Maker struct {
	// Logger is told of roots ignored: not local folders, past MaxRoots,
	// outside every grant.
	Logger *slog.Logger

	mu    sync.Mutex
	roots map[*mcp.ServerSession][]string
	// watched are the sessions with a goroutine that forgets their roots
	// when they end: one per session, however often the roots change.
	watched map[*mcp.ServerSession]bool
}

// For is the folders a call of a plugin with grants may use, given the
// client's canonical roots (nil: the client does not narrow).
func (m *Maker) For(grants []plugin.Grant, roots []string) []abi.Mount {
	ms, outside := Narrow(grants, roots)
	if len(outside) > 0 {
		m.Logger.Warn("ignoring client roots outside every folder the operator granted",
			"outside", len(outside), "examples", outside[:min(len(outside), 4)])
	}
	return ms
}

// Changed forgets a session's roots (notifications/roots/list_changed).
func (m *Maker) Changed(ss *mcp.ServerSession) {
	m.mu.Lock()
	delete(m.roots, ss)
	m.mu.Unlock()
}

// Session returns a legacy session's roots, from the cache or by asking
// the client (the error is the client's).
func (m *Maker) Session(ctx context.Context, ss *mcp.ServerSession) ([]string, error) {
	m.mu.Lock()
	cached, hit := m.roots[ss]
	m.mu.Unlock()
	if hit {
		return cached, nil
	}
	lr, err := ss.ListRoots(ctx, nil)
	if err != nil {
		return nil, err
	}
	roots := m.canonical(lr)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.roots == nil {
		m.roots = map[*mcp.ServerSession][]string{}
		m.watched = map[*mcp.ServerSession]bool{}
	}
	if !m.watched[ss] {
		// Forget the session's roots when it ends. (Not keyed on the
		// cache entry: roots/list_changed deletes that, and a client
		// alternating it with calls would start a goroutine per call.)
		m.watched[ss] = true
		go func() {
			ss.Wait()
			m.mu.Lock()
			delete(m.roots, ss)
			delete(m.watched, ss)
			m.mu.Unlock()
		}()
	}
	m.roots[ss] = roots
	return roots, nil
}

// Answer decodes a round trip's answer to roots/list into canonical roots.
func (m *Maker) Answer(raw json.RawMessage) ([]string, error) {
	var lr mcp.ListRootsResult
	if err := json.Unmarshal(raw, &lr); err != nil {
		return nil, fmt.Errorf("the client's roots answer is not a roots list: %v", err)
	}
	return m.canonical(&lr), nil
}

// canonical turns file:// root URIs into canonical host paths. Roots that
// are not local folders, and those past MaxRoots, are skipped with one
// warning naming how many and a few of them (the list is the client's, as
// long as it likes). A client that lists no roots at all does not narrow
// (nil): many clients declare the roots capability without ever setting one.
func (m *Maker) canonical(lr *mcp.ListRootsResult) []string {
	if len(lr.Roots) == 0 {
		return nil
	}
	out := []string{}
	var examples []string
	for _, r := range lr.Roots[:min(len(lr.Roots), MaxRoots)] {
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
		if len(lr.Roots) > MaxRoots {
			args = append(args, "past_limit", len(lr.Roots)-MaxRoots, "limit", MaxRoots)
		}
		m.Logger.Warn("ignoring client roots that are not local folders", args...)
	}
	return out
}
