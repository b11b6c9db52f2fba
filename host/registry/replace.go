package registry

import (
	"context"
	"fmt"

	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// Hot reload: while the server runs, a plugin is added after every other
// one (Append), put in the place of its previous version (Replace) or
// withdrawn (Remove). Each is one step under the registry's lock, so a
// lookup sees either the old surface or the new one, never a mix; the
// caller publishes the returned changes and closes the plugin that left.

// Read reads and checks everything p declares, without adding it: the
// slow part of a reload (it runs guest code), done before the swap.
func Read(ctx context.Context, p *plugin.Plugin, opts AddOptions) (*Entry, error) {
	e, err := read(ctx, p, opts)
	if err != nil {
		return nil, fmt.Errorf("plugin %q: %w", p.Name(), err)
	}
	return e, nil
}

// Append adds e's plugin after every plugin so far, so it never takes a
// name or URI from one already served. A collision is an error naming both
// plugins, and nothing is added.
func (r *Registry) Append(e *Entry, opts AddOptions) (*Changes, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &candidate{rank: r.nextRank, e: e, opts: opts}
	r.cands = append(r.cands, c)
	ch := r.recompute() // the worst rank: it changes no other plugin
	if !c.served {
		r.cands = r.cands[:len(r.cands)-1]
		r.recompute()
		return nil, fmt.Errorf("plugin %q: %w", e.Plugin.Name(), c.err)
	}
	r.nextRank++
	return ch, nil
}

// Replace puts e's plugin in old's place: the same rank, so it wins and
// loses the same collisions old did. The changes list old's entry as
// removed and e as added, with whatever the difference serves or withdraws
// elsewhere (a plugin of a worse rank that a new name of e collides with is
// withdrawn, one that a name e dropped was blocking is served again).
// Should e not be served in old's place (it collides with a plugin of a
// better rank), nothing changes and the collision is returned. Old is not
// closed.
func (r *Registry) Replace(old *plugin.Plugin, e *Entry, opts AddOptions) (*Changes, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.candidate(old)
	if c == nil {
		return nil, fmt.Errorf("plugin %q is not in the registry", old.Name())
	}
	prev, prevOpts, was := c.e, c.opts, c.served
	c.e, c.opts, c.served = e, opts, false // reported as added if served
	ch := r.recompute()
	if !c.served {
		err := c.err
		c.e, c.opts, c.served = prev, prevOpts, was
		r.recompute() // the same candidates as before: the same surface
		return nil, fmt.Errorf("plugin %q: %w", e.Plugin.Name(), err)
	}
	if was {
		ch.Removed = append(ch.Removed, prev)
	}
	return ch, nil
}

// Entry returns what a plugin in the registry declared, and its options.
func (r *Registry) Entry(p *plugin.Plugin) (*Entry, AddOptions, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if c := r.candidate(p); c != nil {
		return c.e, c.opts, true
	}
	return nil, AddOptions{}, false
}

// Why returns the reason a plugin in the registry is not served (a
// collision), or nil.
func (r *Registry) Why(p *plugin.Plugin) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if c := r.candidate(p); c != nil && !c.served {
		return fmt.Errorf("plugin %q: %w", p.Name(), c.err)
	}
	return nil
}
