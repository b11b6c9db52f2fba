// Package registry holds everything the loaded plugins declare — tools,
// resources and resource templates, prompts, completions — under the names
// and URIs clients see, and routes each request to the plugin that owns it.
//
// A plugin's lists are read once, when the plugin is added (and again when
// it says they changed), and cached: a client's list request never reaches
// a guest.
package registry

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// Exposed is the name clients see for a tool or prompt a plugin declares:
// "<plugin>_<declared>", or the declared name when unprefixed.
func Exposed(plugin, declared string, opts AddOptions) string {
	if opts.Unprefixed {
		return declared
	}
	return plugin + "_" + declared
}

// MayExpose reports whether a plugin named plugin, exposed per opts, could
// expose a tool or prompt under name (whatever it declares).
func MayExpose(plugin string, opts AddOptions, name string) bool {
	return opts.Unprefixed || strings.HasPrefix(name, plugin+"_")
}

// validName is what MCP clients accept for a tool name.
var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidName reports whether s is usable as a tool name (and as a prefix).
func ValidName(s string) bool { return validName.MatchString(s) }

// Registry maps exposed names and URIs to what serves them. It is safe for
// concurrent use.
//
// The collision rule lives here, and only here. Plugins load concurrently
// and finish in any order, yet which plugin wins a name or URI two of them
// declare must not depend on that order. Every plugin therefore has a rank
// (its place in the configuration, then in the file order) and the served
// surface is always the one a load in rank order would give (recompute):
// each plugin in rank order is served unless it collides (collisions) with
// one served before it. A plugin that arrives late with a better rank takes
// its names back; the one it displaces is withdrawn (and served again
// should the collision go away). A plugin added while serving (Append)
// ranks after every other, so it never takes a name from one that serves;
// a replacement (Replace) takes its predecessor's rank; a plugin's own
// refreshed lists (Refresh) never displace another plugin. Which names a
// plugin still loading could take is Contested (pending.go).
type Registry struct {
	mu        sync.RWMutex
	tools     map[string]*Tool
	prompts   map[string]*Prompt
	resources map[string]*Resource
	templates map[string]*Template
	cands     []*candidate // sorted by rank
	nextRank  int
	loading   map[int]Pending // plugins still loading, by rank (pending.go)
}

// candidate is a plugin whose declarations were read, served or not.
type candidate struct {
	rank   int
	e      *Entry
	opts   AddOptions
	served bool
	err    error // why it is not served
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{tools: map[string]*Tool{}, prompts: map[string]*Prompt{},
		resources: map[string]*Resource{}, templates: map[string]*Template{}}
}

// Entry is everything one plugin declared.
type Entry struct {
	Plugin    *plugin.Plugin
	Tools     []*Tool
	Resources []*Resource
	Templates []*Template
	Prompts   []*Prompt
}

// AddOptions says how a plugin's names are exposed.
type AddOptions struct {
	// Unprefixed exposes the plugin's tool names as declared, instead of
	// "<plugin>_<tool>".
	Unprefixed bool
	// AllowConfusable serves a tool or prompt whose exposed name looks
	// like (has the TR39 skeleton of) another plugin's (hidden_text =
	// "warn"); otherwise that is a collision.
	AllowConfusable bool
	// Vet, if set, is given everything the plugin declares, checked, and
	// returns the part to serve (host/trust: declarations held or
	// refused are left out), or an error that fails the read. refresh is
	// set for a list the plugin refreshed at run time.
	Vet func(e *Entry, refresh bool) (*Entry, error)
}

// Changes says how one AddRanked or Remove changed the served surface.
type Changes struct {
	// Added are the entries now served (the new plugin's, or ones a
	// withdrawn plugin no longer blocks).
	Added []*Entry
	// Removed are the entries no longer served.
	Removed []*Entry
}

// Add reads everything a plugin declares (tools, resources, templates,
// prompts), validates it and adds it after every plugin added so far.
// Either all of it is added or none: a malformed list or a collision with
// another plugin is an error naming the plugin and the item.
func (r *Registry) Add(ctx context.Context, p *plugin.Plugin, opts AddOptions) (*Entry, error) {
	e, err := read(ctx, p, opts)
	if err != nil {
		return nil, fmt.Errorf("plugin %q: %w", p.Name(), err)
	}
	if _, err := r.Append(e, opts); err != nil {
		return nil, err
	}
	return e, nil
}

// AddRanked reads a plugin's declarations and adds it with the given rank
// (lower wins a collision). A read error is returned; a collision is not an
// error here: the plugin waits, unserved, until Settle reports it, since a
// plugin still loading may yet displace the one it collides with. The
// returned changes say what to publish and withdraw.
func (r *Registry) AddRanked(ctx context.Context, p *plugin.Plugin, opts AddOptions, rank int) (*Changes, error) {
	e, err := read(ctx, p, opts)
	if err != nil {
		return nil, fmt.Errorf("plugin %q: %w", p.Name(), err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &candidate{rank: rank, e: e, opts: opts}
	i := sort.Search(len(r.cands), func(i int) bool { return r.cands[i].rank > rank })
	r.cands = append(r.cands[:i], append([]*candidate{c}, r.cands[i:]...)...)
	r.nextRank = max(r.nextRank, rank+1)
	return r.recompute(), nil
}

// Remove withdraws a plugin (served or not) from the registry. It does not
// close the plugin.
func (r *Registry) Remove(p *plugin.Plugin) *Changes {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, c := range r.cands {
		if c.e.Plugin == p {
			r.cands = append(r.cands[:i], r.cands[i+1:]...)
			ch := r.recompute()
			if c.served {
				ch.Removed = append(ch.Removed, c.e)
			}
			return ch
		}
	}
	return &Changes{}
}

// recompute rebuilds the served surface in rank order and reports the
// difference. r.mu must be held.
func (r *Registry) recompute() *Changes {
	r.tools, r.prompts = map[string]*Tool{}, map[string]*Prompt{}
	r.resources, r.templates = map[string]*Resource{}, map[string]*Template{}
	ch := &Changes{}
	for _, c := range r.cands {
		was := c.served
		c.err = r.collisions(c.e, c.opts)
		c.served = c.err == nil
		if c.served {
			r.insert(c.e)
		}
		switch {
		case c.served && !was:
			ch.Added = append(ch.Added, c.e)
		case !c.served && was:
			ch.Removed = append(ch.Removed, c.e)
		}
	}
	return ch
}

// Refusal is a plugin the registry does not serve, and why.
type Refusal struct {
	Plugin *plugin.Plugin
	Err    error
}

// Settle ends the initial load: plugins not served because they collide
// with a plugin of a better rank are removed and returned, for the caller
// to report and close.
func (r *Registry) Settle() []Refusal {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Refusal
	kept := r.cands[:0]
	for _, c := range r.cands {
		if c.served {
			kept = append(kept, c)
			continue
		}
		out = append(out, Refusal{Plugin: c.e.Plugin, Err: fmt.Errorf("plugin %q: %w", c.e.Plugin.Name(), c.err)})
	}
	r.cands = kept
	return out
}

// Rank returns a plugin's rank.
func (r *Registry) Rank(p *plugin.Plugin) (int, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if c := r.candidate(p); c != nil {
		return c.rank, true
	}
	return 0, false
}

// Served reports whether a plugin's declarations are served.
func (r *Registry) Served(p *plugin.Plugin) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := r.candidate(p)
	return c != nil && c.served
}

func (r *Registry) candidate(p *plugin.Plugin) *candidate {
	for _, c := range r.cands {
		if c.e.Plugin == p {
			return c
		}
	}
	return nil
}

// Refresh re-reads a plugin's declarations (after it said its lists
// changed) and replaces its old ones. It returns the old and new entries.
func (r *Registry) Refresh(ctx context.Context, p *plugin.Plugin) (old, cur *Entry, err error) {
	r.mu.RLock()
	c := r.candidate(p)
	var opts AddOptions
	if c != nil {
		opts = c.opts
	}
	r.mu.RUnlock()
	if c == nil {
		return nil, nil, fmt.Errorf("plugin %q is not in the registry", p.Name())
	}
	e, err := read(withFresh(ctx), p, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("plugin %q: %w", p.Name(), err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c = r.candidate(p); c == nil || !c.served {
		return nil, nil, fmt.Errorf("plugin %q is not served", p.Name())
	}
	old = r.remove(p)
	if err := r.collisions(e, opts); err != nil {
		r.insert(old)
		return nil, nil, fmt.Errorf("plugin %q: %w", p.Name(), err)
	}
	r.insert(e)
	c.e = e
	return old, e, nil
}

// Restore puts back a plugin's entry as it was before a Refresh whose new
// entry could not be published.
func (r *Registry) Restore(p *plugin.Plugin, old *Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.candidate(p)
	if c == nil || !c.served {
		return
	}
	r.remove(p)
	r.insert(old)
	c.e = old
}

func (r *Registry) collisions(e *Entry, opts AddOptions) error {
	for _, t := range e.Tools {
		if prev, ok := r.tools[t.Def.Name]; ok {
			return fmt.Errorf("tool %q collides with the tool of the same name from plugin %q; set prefix = true on one of them, or rename it",
				t.Def.Name, prev.Plugin.Name())
		}
	}
	for _, pr := range e.Prompts {
		if prev, ok := r.prompts[pr.Def.Name]; ok {
			return fmt.Errorf("prompt %q collides with the prompt of the same name from plugin %q", pr.Def.Name, prev.Plugin.Name())
		}
	}
	if !opts.AllowConfusable {
		if err := r.confusable(e); err != nil {
			return err
		}
	}
	if err := r.skillOverlap(e); err != nil {
		return err
	}
	for _, res := range e.Resources {
		if prev, ok := r.resources[res.Def.URI]; ok {
			return fmt.Errorf("resource %q is also declared by plugin %q", res.Def.URI, prev.Plugin.Name())
		}
		for _, t := range r.templates {
			if t.match(res.Def.URI) {
				return fmt.Errorf("resource %q matches template %q of plugin %q", res.Def.URI, t.Def.URITemplate, t.Plugin.Name())
			}
		}
	}
	for _, t := range e.Templates {
		for _, prev := range r.templates {
			if overlap(t, prev) {
				return fmt.Errorf("resource template %q overlaps template %q of plugin %q", t.Def.URITemplate, prev.Def.URITemplate, prev.Plugin.Name())
			}
		}
		for uri, prev := range r.resources {
			if t.match(uri) {
				return fmt.Errorf("resource template %q matches resource %q of plugin %q", t.Def.URITemplate, uri, prev.Plugin.Name())
			}
		}
	}
	return nil
}

func (r *Registry) insert(e *Entry) {
	for _, t := range e.Tools {
		r.tools[t.Def.Name] = t
	}
	for _, p := range e.Prompts {
		r.prompts[p.Def.Name] = p
	}
	for _, res := range e.Resources {
		r.resources[res.Def.URI] = res
	}
	for _, t := range e.Templates {
		r.templates[t.Def.URITemplate] = t
	}
}

func (r *Registry) remove(p *plugin.Plugin) *Entry {
	return &Entry{Plugin: p,
		Tools:     take(r.tools, p, func(t *Tool) *plugin.Plugin { return t.Plugin }),
		Prompts:   take(r.prompts, p, func(x *Prompt) *plugin.Plugin { return x.Plugin }),
		Resources: take(r.resources, p, func(x *Resource) *plugin.Plugin { return x.Plugin }),
		Templates: take(r.templates, p, func(x *Template) *plugin.Plugin { return x.Plugin }),
	}
}

// take removes and returns the values of m that belong to p.
func take[V any](m map[string]V, p *plugin.Plugin, owner func(V) *plugin.Plugin) []V {
	var out []V
	for k, v := range m {
		if owner(v) == p {
			out = append(out, v)
			delete(m, k)
		}
	}
	return out
}

// Plugins returns the plugins added so far, in rank order (served or not).
func (r *Registry) Plugins() []*plugin.Plugin {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*plugin.Plugin, 0, len(r.cands))
	for _, c := range r.cands {
		out = append(out, c.e.Plugin)
	}
	return out
}

// Close closes every plugin.
func (r *Registry) Close(ctx context.Context) {
	for _, p := range r.Plugins() {
		p.Close(ctx)
	}
}

// byKey returns m's values in the order of their keys: the exposed name,
// URI or URI template each is registered under.
func byKey[T any](m map[string]T) []T {
	out := make([]T, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}
