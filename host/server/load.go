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
// serving it is published, and otherwise waits until it is or until the
// initial load ends (Ready). A list request waits for the end of the initial
// load, so a client's first list is complete: lists are what clients cache,
// and many never re-list on list_changed. The load has a deadline (the
// command's --load-timeout), so no request waits for ever.

// loadState tracks which plugins are published.
type loadState struct {
	mu      sync.Mutex
	live    map[*plugin.Plugin]bool
	changed chan struct{} // closed and replaced at each publication
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
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

func (l *loadState) isLive(p *plugin.Plugin) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.live[p]
}

// Publish applies what the registry changed: it withdraws the entries no
// longer served and publishes the new ones. An entry go-sdk refuses is
// removed from the registry and returned, for the caller to report and
// close; what its removal changes is applied too.
func (s *Server) Publish(ch *registry.Changes) []registry.Refusal {
	var refused []registry.Refusal
	for ch != nil && len(ch.Added)+len(ch.Removed) > 0 {
		for _, e := range ch.Removed {
			s.load.set(e.Plugin, false)
			s.removeEntry(e)
		}
		var next *registry.Changes
		for i, e := range ch.Added {
			if err := s.AddEntry(e); err != nil {
				refused = append(refused, registry.Refusal{Plugin: e.Plugin, Err: err})
				next = s.reg.Remove(e.Plugin)
				// What is left of this batch and still served goes with
				// the changes the removal made.
				for _, rest := range ch.Added[i+1:] {
					if s.reg.Served(rest.Plugin) {
						next.Added = append(next.Added, rest)
					}
				}
				break
			}
		}
		ch = next
	}
	return refused
}

// published reports whether the target of a request that names one is
// served by a published plugin. Requests that name nothing report true.
func (s *Server) published(method string, req mcp.Request) bool {
	var p *plugin.Plugin
	var ok bool
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r.Params == nil {
			return true
		}
		var t *registry.Tool
		if t, ok = s.reg.Lookup(r.Params.Name); ok {
			p = t.Plugin
		}
	case *mcp.ReadResourceRequest:
		if r.Params == nil {
			return true
		}
		p, ok = s.reg.ResourceOwner(r.Params.URI)
	case *mcp.SubscribeRequest:
		if r.Params == nil {
			return true
		}
		p, ok = s.reg.ResourceOwner(r.Params.URI)
	case *mcp.GetPromptRequest:
		if r.Params == nil {
			return true
		}
		var pr *registry.Prompt
		if pr, ok = s.reg.LookupPrompt(r.Params.Name); ok {
			p = pr.Plugin
		}
	case *mcp.CompleteRequest:
		if r.Params == nil || r.Params.Ref == nil {
			return true
		}
		switch r.Params.Ref.Type {
		case "ref/prompt":
			var pr *registry.Prompt
			if pr, ok = s.reg.LookupPrompt(r.Params.Ref.Name); ok {
				p = pr.Plugin
			}
		case "ref/resource":
			if p, ok = s.reg.TemplateOwner(r.Params.Ref.URI); !ok {
				p, ok = s.reg.ResourceOwner(r.Params.Ref.URI)
			}
		default:
			return true
		}
	default:
		return true
	}
	return ok && s.load.isLive(p)
}

// awaitTarget waits until the request's target is published, the initial
// load ends, or ctx ends.
func (s *Server) awaitTarget(ctx context.Context, method string, req mcp.Request) error {
	for {
		changed := s.load.wait()
		if s.published(method, req) {
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
