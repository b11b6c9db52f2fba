package server

import (
	"context"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk notifies every connected session of each list change, even one
// that has not finished its handshake; and since plugins are published as
// they load, a client would get list_changed notifications for the initial
// load, before initialize and again after its first (complete) list. The
// server sends a session notifications/{tools,resources,prompts}/list_changed
// only when it is useful: after the session's notifications/initialized,
// after the initial load, and only for a change the session's last list of
// that kind did not include. 2026-07-28 subscriptions (subscriptions/listen)
// asked for their notifications and get them as go-sdk sends them.

// listKind indexes the three kinds of lists (the registry's kinds of
// name).
type listKind = registry.Kind

const (
	toolList     = registry.KindTool
	resourceList = registry.KindResource
	promptList   = registry.KindPrompt
	kinds        = registry.Kinds
)

var changeNotices = map[string]listKind{"notifications/tools/list_changed": toolList,
	"notifications/resources/list_changed": resourceList, "notifications/prompts/list_changed": promptList}

// listState numbers the changes of each kind and remembers, per session,
// the change each kind stood at when the session started (or at the end of
// the initial load, if later).
type listState struct {
	mu       sync.Mutex
	gen      [kinds]uint64
	base     [kinds]uint64 // gen at the end of the initial load
	ready    bool
	sessions map[*mcp.ServerSession]*[kinds]uint64 // initialized sessions
}

// changed records a change of kind k.
func (l *listState) changed(k listKind) {
	l.mu.Lock()
	l.gen[k]++
	l.mu.Unlock()
}

// baseline marks the end of the initial load: what it published counts as
// listed by every session.
func (l *listState) baseline() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.base, l.ready = l.gen, true
	for _, at := range l.sessions {
		for k := range at {
			at[k] = max(at[k], l.base[k])
		}
	}
}

// initialized records a session that finished its handshake, until it ends.
func (l *listState) initialized(ss *mcp.ServerSession) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sessions == nil {
		l.sessions = map[*mcp.ServerSession]*[kinds]uint64{}
	}
	if _, ok := l.sessions[ss]; ok {
		return
	}
	at := l.base
	l.sessions[ss] = &at
	go func() {
		ss.Wait()
		l.mu.Lock()
		delete(l.sessions, ss)
		l.mu.Unlock()
	}()
}

// wanted reports whether a session needs a list_changed of kind k now.
func (l *listState) wanted(ss *mcp.ServerSession, k listKind) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	at := l.sessions[ss]
	return l.ready && at != nil && l.gen[k] > at[k]
}

// noteSessions is a receiving middleware that records initialized sessions.
func (s *Server) noteSessions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "notifications/initialized" && err == nil {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				s.lists.initialized(ss)
			}
		}
		return res, err
	}
}

// filterListChanged is the sending middleware that drops list_changed
// notifications a session does not need.
func (s *Server) filterListChanged(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		k, ok := changeNotices[method]
		if !ok {
			return next(ctx, method, req)
		}
		if p := req.GetParams(); p != nil {
			if _, sub := p.GetMeta()[mcp.MetaKeySubscriptionID]; sub {
				return next(ctx, method, req)
			}
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok || !s.lists.wanted(ss, k) {
			return nil, nil
		}
		return next(ctx, method, req)
	}
}

// refresher has a plugin's lists re-read after it says they changed
// (Options.ListsChanged). Requests coalesce: one refresh runs per plugin at
// a time, after a short delay, and outside the guest call that asked for it
// (which holds a concurrency slot).
type refresher struct {
	mu      sync.Mutex
	pending map[*plugin.Plugin]bool
}

func (s *Server) requestRefresh(p *plugin.Plugin) {
	if s.opts.ListsChanged == nil {
		return
	}
	s.refresh.mu.Lock()
	defer s.refresh.mu.Unlock()
	if s.refresh.pending == nil {
		s.refresh.pending = map[*plugin.Plugin]bool{}
	}
	if s.refresh.pending[p] {
		return
	}
	s.refresh.pending[p] = true
	time.AfterFunc(50*time.Millisecond, func() {
		s.refresh.mu.Lock()
		delete(s.refresh.pending, p)
		s.refresh.mu.Unlock()
		ep := s.epochs.begin() // p is not closed under the refresh (reload.go)
		defer s.epochs.end(ep)
		s.opts.ListsChanged(p)
	})
}
