package server

import (
	"context"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
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
	var p *plugin.Plugin
	var ok bool
	var k listKind
	var name string
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r.Params == nil {
			return true
		}
		k, name = toolList, r.Params.Name
	case *mcp.ReadResourceRequest:
		if r.Params == nil {
			return true
		}
		k, name = resourceList, r.Params.URI
	case *mcp.SubscribeRequest:
		if r.Params == nil {
			return true
		}
		k, name = resourceList, r.Params.URI
	case *mcp.GetPromptRequest:
		if r.Params == nil {
			return true
		}
		k, name = promptList, r.Params.Name
	case *mcp.CompleteRequest:
		if r.Params == nil || r.Params.Ref == nil {
			return true
		}
		switch r.Params.Ref.Type {
		case "ref/prompt":
			k, name = promptList, r.Params.Ref.Name
		case "ref/resource":
			if p, ok = s.reg.TemplateOwner(r.Params.Ref.URI); ok {
				return s.settled(p, resourceList, r.Params.Ref.URI)
			}
			k, name = resourceList, r.Params.Ref.URI
		default:
			return true
		}
	default:
		return true
	}
	switch k {
	case toolList:
		var t *registry.Tool
		if t, ok = s.reg.Lookup(name); ok {
			p = t.Plugin
		}
	case promptList:
		var pr *registry.Prompt
		if pr, ok = s.reg.LookupPrompt(name); ok {
			p = pr.Plugin
		}
	case resourceList:
		p, ok = s.reg.ResourceOwner(name)
	}
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
