package server

import (
	"context"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
)

// Hot reload swaps plugins while clients use them. Two things make it
// invisible to a client, beyond the list_changed notifications:
//
//   - Publish publishes before it withdraws. go-sdk's AddTool (AddPrompt,
//     AddResource...) replaces a feature of the same name in place, so a
//     tool that both versions declare is never missing from tools/list:
//     a list sees the old definition or the new one. Only names the new
//     version dropped are withdrawn, after it is published.
//   - Retire closes the plugin that left only once no request that began
//     before the swap is still running: a call that already reached the
//     old version (or was about to: go-sdk had looked its handler up)
//     finishes on it, with the old answer. Requests that begin after the
//     swap find only the new version. That is an epoch count, not a
//     reference count per plugin, so it covers every path to a plugin
//     (tools, resources, prompts, completions, the list refresher) without
//     each one taking a reference.

// epochs counts the requests that may use a plugin, by the epoch they
// began in. Retiring a plugin starts a new epoch and waits until no
// request of an earlier one runs.
type epochs struct {
	mu      sync.Mutex
	cur     uint64
	running map[uint64]int
	waiters []epochWaiter
}

type epochWaiter struct {
	epoch uint64 // requests begun before this one must end
	done  chan struct{}
}

// begin counts a request in and returns its epoch, for end.
func (e *epochs) begin() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running == nil {
		e.running = map[uint64]int{}
	}
	e.running[e.cur]++
	return e.cur
}

// end counts a request of epoch ep out.
func (e *epochs) end(ep uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running[ep]--; e.running[ep] <= 0 {
		delete(e.running, ep)
	}
	kept := e.waiters[:0]
	for _, w := range e.waiters {
		if e.quiet(w.epoch) {
			close(w.done)
		} else {
			kept = append(kept, w)
		}
	}
	e.waiters = kept
}

// quiet reports whether no request begun before epoch ep runs. e.mu must
// be held.
func (e *epochs) quiet(ep uint64) bool {
	for k := range e.running {
		if k < ep {
			return false
		}
	}
	return true
}

// advance starts a new epoch and returns a channel closed once every
// request begun before it has ended.
func (e *epochs) advance() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cur++
	w := epochWaiter{epoch: e.cur, done: make(chan struct{})}
	if e.quiet(w.epoch) {
		close(w.done)
	} else {
		e.waiters = append(e.waiters, w)
	}
	return w.done
}

// Publish applies what the registry changed (its AddRanked, Append,
// Replace, Remove and Refresh results): it publishes every added entry,
// then withdraws what the removed entries declared that no added entry
// declares again, so a name served before and after is never missing in
// between. It does not touch the registry: the caller (the catalog of
// package lifecycle) decides what changes. Clients that initialized get
// one notifications/…/list_changed per kind changed (go-sdk sends one per
// kind for changes less than 10 ms apart).
//
// An entry go-sdk refuses is not published (the registry checked it by
// go-sdk's rules first, so this should not happen) and is returned; the
// caller withdraws it from the registry (putting the previous version back,
// for a replacement) and publishes what that changed.
func (s *Server) Publish(ch *registry.Changes) []registry.Refusal {
	if ch == nil {
		return nil
	}
	var refused []registry.Refusal
	kept := map[listKind]map[string]bool{toolList: {}, promptList: {}, resourceList: {}}
	templates := map[string]bool{}
	published := map[*plugin.Plugin]bool{}
	for _, e := range ch.Added {
		if err := s.AddEntry(e); err != nil {
			refused = append(refused, registry.Refusal{Plugin: e.Plugin, Err: err})
			continue
		}
		published[e.Plugin] = true
		for _, t := range e.Tools {
			kept[toolList][t.Def.Name] = true
		}
		for _, p := range e.Prompts {
			kept[promptList][p.Def.Name] = true
		}
		for _, r := range e.Resources {
			kept[resourceList][r.Def.URI] = true
		}
		for _, t := range e.Templates {
			templates[t.Def.URITemplate] = true
		}
	}
	for _, e := range ch.Removed {
		if !published[e.Plugin] { // a refresh removes and adds the same plugin
			s.load.set(e.Plugin, false)
		}
		var tools, prompts, uris, tmpls []string
		for _, t := range e.Tools {
			if !kept[toolList][t.Def.Name] {
				tools = append(tools, t.Def.Name)
			}
		}
		for _, p := range e.Prompts {
			if !kept[promptList][p.Def.Name] {
				prompts = append(prompts, p.Def.Name)
			}
		}
		for _, r := range e.Resources {
			if !kept[resourceList][r.Def.URI] {
				uris = append(uris, r.Def.URI)
			}
		}
		for _, t := range e.Templates {
			if !templates[t.Def.URITemplate] {
				tmpls = append(tmpls, t.Def.URITemplate)
			}
		}
		s.noteChanges(e)
		s.mcp.RemoveTools(tools...)
		s.mcp.RemovePrompts(prompts...)
		s.mcp.RemoveResources(uris...)
		s.mcp.RemoveResourceTemplates(tmpls...)
	}
	return refused
}

// Retire closes a plugin that a reload withdrew from the registry, in the
// background, once every request that began before now has ended (see
// above); Close itself then waits for the plugin's running calls, each
// bounded by its time limit. Call it after the swap is published. The
// returned channel is closed once the plugin is closed.
func (s *Server) Retire(p *plugin.Plugin) <-chan struct{} {
	quiet := s.epochs.advance()
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-quiet
		p.Close(context.Background())
	}()
	return done
}

// Reloading marks a hot reload as begun (on) or ended (off). The server
// keeps serving throughout, so it stays ready; /readyz reports
// "reloading": true meanwhile so an operator or a rollout can tell.
func (s *Server) Reloading(on bool) {
	if on {
		s.reloads.Add(1)
	} else {
		s.reloads.Add(-1)
	}
}
