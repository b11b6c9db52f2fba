package server

import (
	"fmt"
	"slices"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// declKind is one of the four kinds of declaration a plugin publishes
// (tools, resources, resource templates, prompts), each served by go-sdk
// under its own key and touching one kind of list. declKinds is the one
// place that enumerates them: publishing, withdrawing, and the lists a
// change notifies all range over it.
type declKind struct {
	list listKind
	// names are the keys go-sdk serves e's declarations of this kind under.
	names func(e *registry.Entry) []string
	// add publishes e's declarations of this kind (go-sdk panics on one it
	// refuses: see registry.Guard).
	add func(s *Server, e *registry.Entry)
	// remove withdraws declarations of this kind by key.
	remove func(m *mcp.Server, names ...string)
}

var declKinds = [...]declKind{
	{toolList, func(e *registry.Entry) []string {
		return keys(e.Tools, func(t *registry.Tool) string { return t.Def.Name })
	},
		func(s *Server, e *registry.Entry) {
			for _, t := range e.Tools {
				s.mcp.AddTool(t.Def, s.toolHandler(t))
			}
		}, (*mcp.Server).RemoveTools},
	{resourceList, func(e *registry.Entry) []string {
		return keys(e.Resources, func(r *registry.Resource) string { return r.Def.URI })
	}, func(s *Server, e *registry.Entry) {
		for _, r := range e.Resources {
			s.mcp.AddResource(r.Def, s.readHandler)
		}
	}, (*mcp.Server).RemoveResources},
	{resourceList, func(e *registry.Entry) []string {
		return keys(e.Templates, func(t *registry.Template) string { return t.Def.URITemplate })
	}, func(s *Server, e *registry.Entry) {
		for _, t := range e.Templates {
			s.mcp.AddResourceTemplate(t.Def, s.readHandler)
		}
	}, (*mcp.Server).RemoveResourceTemplates},
	{promptList, func(e *registry.Entry) []string {
		return keys(e.Prompts, func(p *registry.Prompt) string { return p.Def.Name })
	},
		func(s *Server, e *registry.Entry) {
			for _, p := range e.Prompts {
				s.mcp.AddPrompt(p.Def, s.promptHandler(p))
			}
		}, (*mcp.Server).RemovePrompts},
}

// keyed is a set of keys per declaration kind, indexed as declKinds.
type keyed [len(declKinds)]map[string]bool

func keys[T any](in []T, key func(T) string) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = key(v)
	}
	return out
}

// AddEntry publishes everything a plugin declared. Connected clients get
// list_changed notifications. The registry has already checked each
// declaration by go-sdk's rules; should go-sdk still refuse one (it panics),
// nothing of the entry stays published and the refusal is returned.
func (s *Server) AddEntry(e *registry.Entry) error {
	s.noteChanges(e) // before go-sdk schedules its notice (listnotice.State.Filter reads the count)
	err := registry.Guard(func() {
		for _, k := range declKinds {
			k.add(s, e)
		}
	})
	if err != nil {
		s.withdraw(e, nil)
		return fmt.Errorf("plugin %q: go-sdk refused a declaration: %v", e.Plugin.Name(), err)
	}
	s.load.set(e.Plugin, true)
	return nil
}

// withdraw withdraws what e declared, but for the keys kept (nil: none),
// and counts the lists it changed.
func (s *Server) withdraw(e *registry.Entry, kept *keyed) {
	s.noteChanges(e)
	for i, k := range declKinds {
		names := k.names(e)
		if kept != nil {
			names = slices.DeleteFunc(names, func(n string) bool { return kept[i][n] })
		}
		k.remove(s.mcp, names...)
	}
}

// noteChanges counts a change of each kind of list e touches, once each.
func (s *Server) noteChanges(e *registry.Entry) {
	var touched [kinds]bool
	for _, k := range declKinds {
		touched[k.list] = touched[k.list] || len(k.names(e)) > 0
	}
	for l, t := range touched {
		if t {
			s.lists.Changed(listKind(l))
		}
	}
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
	var kept keyed
	for i := range kept {
		kept[i] = map[string]bool{}
	}
	published := map[*plugin.Plugin]bool{}
	for _, e := range ch.Added {
		if err := s.AddEntry(e); err != nil {
			refused = append(refused, registry.Refusal{Plugin: e.Plugin, Err: err})
			continue
		}
		published[e.Plugin] = true
		for i, k := range declKinds {
			for _, n := range k.names(e) {
				kept[i][n] = true
			}
		}
	}
	for _, e := range ch.Removed {
		if !published[e.Plugin] { // a refresh removes and adds the same plugin
			s.load.set(e.Plugin, false)
		}
		s.withdraw(e, &kept)
	}
	return refused
}
