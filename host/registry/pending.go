package registry

import "slices"

// Kind is a kind of name a request may look up: a tool's, a prompt's, or a
// resource's URI (resources and templates share one).
type Kind int

// The kinds of name, in the order of the lists they appear in.
const (
	KindTool Kind = iota
	KindResource
	KindPrompt
	// Kinds counts them.
	Kinds
)

// Pending describes a plugin still loading: enough, from its exports, to
// know what it could declare, and so which names it could take from a
// plugin already served (the collision rule, applied early).
type Pending struct {
	// Rank is the plugin's rank (lower wins a collision).
	Rank int
	// Name is the plugin's name, its tools' and prompts' prefix.
	Name string
	// Unprefixed plugins expose names as declared.
	Unprefixed bool
	// Tools, Resources and Prompts say which lists the plugin exports.
	Tools, Resources, Prompts bool
}

// Loading records plugins about to load, before any request may need them.
func (r *Registry) Loading(ps ...Pending) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.loading == nil {
		r.loading = map[int]Pending{}
	}
	for _, p := range ps {
		r.loading[p.Rank] = p
	}
}

// Loaded records that the load of the plugin of this rank ended, added or
// not.
func (r *Registry) Loaded(rank int) {
	r.mu.Lock()
	delete(r.loading, rank)
	r.mu.Unlock()
}

// StillLoading names the plugins still loading, sorted.
func (r *Registry) StillLoading() []string {
	r.mu.RLock()
	out := make([]string, 0, len(r.loading))
	for _, p := range r.loading {
		out = append(out, p.Name)
	}
	r.mu.RUnlock()
	slices.Sort(out)
	return out
}

// Contested reports whether a plugin still loading, of a rank better than
// owner, could declare name of kind k — and so take it from the plugin of
// rank owner once it loads. For a prefixed name only a plugin of that
// prefix or an unprefixed one could (MayExpose); for a URI, any plugin with
// resource exports.
func (r *Registry) Contested(owner int, k Kind, name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for rank, p := range r.loading {
		if rank >= owner {
			continue
		}
		switch k {
		case KindTool:
			if p.Tools && MayExpose(p.Name, AddOptions{Unprefixed: p.Unprefixed}, name) {
				return true
			}
		case KindPrompt:
			if p.Prompts && MayExpose(p.Name, AddOptions{Unprefixed: p.Unprefixed}, name) {
				return true
			}
		case KindResource:
			if p.Resources {
				return true
			}
		}
	}
	return false
}
