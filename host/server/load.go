package server

import (
	"context"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/reach"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Plugins load in the background, each published as soon as it is ready.
// A request naming something (a tools/call, resources/read, prompts/get,
// completion/complete or resources/subscribe) proceeds as soon as the plugin
// serving it is published and no plugin still loading could take the name
// from it (one of a better rank that could declare it: for a prefixed
// name, only a plugin of that prefix or an unprefixed one; for a URI, any
// plugin with resource exports). Otherwise it waits until then, or until the
// initial load ends (Ready). A list request waits for the end of the
// initial load, so a client's first list is complete: lists are what
// clients cache, and many never re-list on list_changed. The load has a
// deadline (the command's --load-timeout), so no request waits for ever.

// loadState tracks which plugins are published; which still load, and
// which names they could take, the registry knows (registry.Loading).
type loadState struct {
	mu      sync.Mutex
	live    map[*plugin.Plugin]bool
	changed chan struct{} // closed and replaced at each change
}

// Loaded wakes the requests waiting for their target after the load of a
// plugin ended, published or not (the caller has told the registry:
// registry.Loaded).
func (s *Server) Loaded() {
	s.load.mu.Lock()
	defer s.load.mu.Unlock()
	s.load.broadcast()
}

// broadcast wakes the waiting requests. l.mu must be held.
func (l *loadState) broadcast() {
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

// wait returns a channel closed at the next publication.
func (l *loadState) wait() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return l.changed
}

func (l *loadState) set(p *plugin.Plugin, live bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.live == nil {
		l.live = map[*plugin.Plugin]bool{}
	}
	if live {
		l.live[p] = true
	} else {
		delete(l.live, p)
	}
	l.broadcast()
}

func (l *loadState) isLive(p *plugin.Plugin) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.live[p]
}

// published reports whether the target of a request that names one is
// served by a published plugin that no plugin still loading could displace.
// Requests that name nothing report true.
func (s *Server) published(req mcp.Request) bool {
	k, name, ok := reach.Named(req)
	if !ok {
		return true
	}
	if _, complete := req.(*mcp.CompleteRequest); complete && k == registry.KindResource {
		// A completion names a template exactly, else a URI (as
		// registry.Complete resolves it).
		if p, ok := s.reg.TemplateOwner(name); ok {
			return s.settled(p, k, name)
		}
	}
	p, ok := reach.Owner(s.reg, k, name)
	return ok && s.settled(p, k, name)
}

// settled reports whether p is published and keeps name whatever the
// plugins still loading declare.
func (s *Server) settled(p *plugin.Plugin, k listKind, name string) bool {
	if !s.load.isLive(p) {
		return false
	}
	rank, ok := s.reg.Rank(p)
	return ok && !s.reg.Contested(rank, k, name)
}

// awaitTarget waits until the request's target is published, the initial
// load ends, or ctx ends.
func (s *Server) awaitTarget(ctx context.Context, method string, req mcp.Request) error {
	for {
		changed := s.load.wait()
		if s.published(req) {
			return nil
		}
		select {
		case <-changed:
		case <-s.ready:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
