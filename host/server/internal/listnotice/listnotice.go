// Package listnotice decides which notifications/{tools,resources,prompts}/
// list_changed a session gets. go-sdk notifies every connected session of
// each list change, even one that has not finished its handshake; and since
// plugins are published as they load, a client would get list_changed
// notifications for the initial load, before initialize and again after its
// first (complete) list. A session gets one only when it is useful: after
// its notifications/initialized, after the initial load, and only for a
// change the session's last list of that kind did not include. 2026-07-28
// subscriptions (subscriptions/listen) asked for their notifications and get
// them as go-sdk sends them.
package listnotice

import (
	"context"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var notices = map[string]registry.Kind{"notifications/tools/list_changed": registry.KindTool,
	"notifications/resources/list_changed": registry.KindResource, "notifications/prompts/list_changed": registry.KindPrompt}

// State numbers the changes of each kind of list and remembers, per
// session, the change each kind stood at when the session started (or at
// the end of the initial load, if later). The zero State is ready to use.
type State struct {
	mu       sync.Mutex
	gen      [registry.Kinds]uint64
	base     [registry.Kinds]uint64 // gen at the end of the initial load
	ready    bool
	sessions map[*mcp.ServerSession]*[registry.Kinds]uint64 // initialized sessions
}

// Changed records a change of kind k, before go-sdk schedules its notice.
func (l *State) Changed(k registry.Kind) {
	l.mu.Lock()
	l.gen[k]++
	l.mu.Unlock()
}

// Changes returns the changes recorded so far, by kind.
func (l *State) Changes() [registry.Kinds]uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

// Baseline marks the end of the initial load: what it published counts as
// listed by every session.
func (l *State) Baseline() {
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
func (l *State) initialized(ss *mcp.ServerSession) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sessions == nil {
		l.sessions = map[*mcp.ServerSession]*[registry.Kinds]uint64{}
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
func (l *State) wanted(ss *mcp.ServerSession, k registry.Kind) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	at := l.sessions[ss]
	return l.ready && at != nil && l.gen[k] > at[k]
}

// Note is the receiving middleware that records initialized sessions.
func (l *State) Note(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "notifications/initialized" && err == nil {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				l.initialized(ss)
			}
		}
		return res, err
	}
}

// Filter is the sending middleware that drops the list_changed
// notifications a session does not need.
func (l *State) Filter(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		k, ok := notices[method]
		if !ok {
			return next(ctx, method, req)
		}
		if p := req.GetParams(); p != nil {
			if _, sub := p.GetMeta()[mcp.MetaKeySubscriptionID]; sub {
				return next(ctx, method, req)
			}
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok || !l.wanted(ss, k) {
			return nil, nil
		}
		return next(ctx, method, req)
	}
}
