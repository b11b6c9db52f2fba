package trust

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/fingerprint"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
)

// Mode is a plugin's trust setting.
type Mode string

// The trust modes.
const (
	// TOFU records the declarations a plugin is first served with; after
	// that, a changed or new declaration is held.
	TOFU Mode = "tofu"
	// Pin serves only what the lock file approves.
	Pin Mode = "pin"
	// Off serves every declaration (hidden text is still checked).
	Off Mode = "off"
)

// Settings are one plugin's trust settings (host/config's, resolved).
type Settings struct {
	Mode Mode
	// WarnHidden serves declarations with hidden characters or confusable
	// names, with a warning (hidden_text = "warn"); else they are refused.
	WarnHidden bool
}

// Store is where approvals are kept: the lock file (source.Lock).
type Store interface {
	// Decls returns the lock file's decl lines.
	Decls() []string
	// SetDecls replaces one plugin's decl lines.
	SetDecls(plugin string, lines []string) error
}

// Event is something the Vetter did, for the audit log and the metrics.
type Event struct {
	// Kind is "hold", "approval" (recorded on first use) or "refusal"
	// (hidden text, a confusable name).
	Kind   string
	Plugin string
	Decl   Key
	// Detail says why: the fields that changed, "new", the hidden
	// characters.
	Detail string
}

// Hold is a declaration held back, and why.
type Hold struct {
	Plugin string
	Decl
	// Old is the approved fingerprint, nil for a declaration never
	// approved.
	Old *fingerprint.Print
	// Changed are the fields that differ from the approved version.
	Changed []string
}

// Why reads as "its description, inputSchema changed since it was
// approved" or "it is new".
func (h Hold) Why() string {
	if h.Old == nil {
		return "it is new, never approved"
	}
	return "its " + strings.Join(h.Changed, ", ") + " changed since it was approved"
}

// Options configure a Vetter.
type Options struct {
	// Store keeps approvals; nil records nothing (and approves nothing).
	Store Store
	// Logger gets one line per hold and refusal (each logged once).
	Logger *slog.Logger
	// Force, if set, replaces every plugin's mode (serve --trust off).
	Force Mode
	// Approve is the command that approves, for messages
	// ("mcpwasm trust --config mcpwasm.toml").
	Approve string
	// Events, if set, is told of each hold, approval and refusal (once).
	Events func(Event)
	// Record names a plugin's approvals in the store: ByName (the default)
	// or BySource.
	Record Keyer
}

// Vetter applies the trust settings to plugins' declarations. It is safe
// for concurrent use.
type Vetter struct {
	o      Options
	mu     sync.Mutex
	held   map[string]map[Key]Hold // by plugin
	logged map[string]bool         // what was logged: plugin, kind, name, sum, why
}

// New returns a Vetter.
func New(o Options) *Vetter {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Approve == "" {
		o.Approve = "mcpwasm trust"
	}
	return &Vetter{o: o, held: map[string]map[Key]Hold{}, logged: map[string]bool{}}
}

// ErrHeld is wrapped by the error Vet returns when keepOld is set and a
// declaration is held.
var ErrHeld = errors.New("declarations held")

// Vet returns the part of e to serve under s: declarations with hidden
// text or a confusable name refused (unless s.WarnHidden), then, by mode,
// those the lock file does not approve held. On a plugin's first use
// under TOFU every declaration is recorded and served. With keepOld (a
// reloaded version replacing one that serves) any hold is an error
// wrapping ErrHeld instead, so the approved version keeps serving.
func (v *Vetter) Vet(e *registry.Entry, s Settings, keepOld bool) (*registry.Entry, error) {
	plugin, rec := e.Plugin.Name(), v.o.Record.Of(e.Plugin)
	decls, err := Decls(e)
	if err != nil {
		return nil, fmt.Errorf("plugin %q: %w", plugin, err)
	}
	mode := s.Mode
	if v.o.Force != "" {
		mode = v.o.Force
	}
	if mode == "" {
		mode = TOFU
	}
	kept := decls[:0:0]
	for _, d := range decls {
		if why := d.refusal(); why != "" {
			if s.WarnHidden {
				v.once(plugin, d, "warn"+why, func() {
					v.o.Logger.Warn("declaration served with hidden text or a confusable name (hidden_text = \"warn\")",
						"plugin", plugin, "kind", d.Kind, "name", d.Name, "finding", why)
				})
			} else {
				v.once(plugin, d, "refuse"+why, func() {
					v.o.Logger.Error("declaration refused: hidden text or a confusable name (hidden_text = \"warn\" serves it)",
						"plugin", plugin, "kind", d.Kind, "name", d.Name, "finding", why)
					v.event(Event{Kind: "refusal", Plugin: plugin, Decl: d.Key, Detail: why})
				})
				continue
			}
		}
		kept = append(kept, d)
	}
	var holds []Hold
	if mode != Off {
		approved, err := v.approved(e.Plugin)
		if err != nil {
			return nil, err
		}
		if approved == nil && mode == TOFU {
			if v.o.Store != nil {
				if err := v.record(plugin, rec, kept, "first use"); err != nil {
					v.o.Logger.Error("declarations not recorded (they are served, and recorded at the next start)", "plugin", plugin, "err", err)
				}
			}
		} else {
			served := kept[:0:0]
			for _, d := range kept {
				old, ok := approved[d.Key]
				if ok && old.Sum == d.Print.Sum {
					served = append(served, d)
					continue
				}
				h := Hold{Plugin: plugin, Decl: d}
				if ok {
					h.Old = &old
					h.Changed = fingerprint.Changed(old, d.Print)
				}
				holds = append(holds, h)
			}
			kept = served
		}
	}
	v.setHeld(plugin, holds)
	for _, h := range holds {
		v.once(plugin, h.Decl, "hold", func() {
			v.o.Logger.Warn("declaration held: not listed, not callable until approved",
				"plugin", plugin, "kind", h.Kind, "name", h.Name, "why", h.Why(), "fingerprint", h.Print.Sum,
				"approve", v.o.Approve+" "+plugin, "development", "mcpwasm serve --trust off")
			v.event(Event{Kind: "hold", Plugin: plugin, Decl: h.Key, Detail: h.Why()})
		})
	}
	if keepOld && len(holds) > 0 {
		var names []string
		for _, h := range holds {
			names = append(names, fmt.Sprintf("%s (%s)", h.Key, h.Why()))
		}
		return nil, fmt.Errorf("plugin %q: %w: %s; the approved version keeps serving; approve with %q, or run %q for development",
			plugin, ErrHeld, strings.Join(names, "; "), v.o.Approve+" "+plugin, "mcpwasm serve --trust off")
	}
	out := &registry.Entry{Plugin: e.Plugin}
	for _, d := range kept {
		d.keep(out)
	}
	return out, nil
}

// refusal says why d may not be served whatever the lock file says, or "".
func (d Decl) refusal() string {
	var parts []string
	for i, f := range d.Hidden {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(d.Hidden)-4))
			break
		}
		parts = append(parts, f.String())
	}
	if d.Confusable != "" {
		parts = append(parts, fmt.Sprintf("name looks like %q (TR39 skeleton)", d.Confusable))
	}
	return strings.Join(parts, "; ")
}

// approved returns the plugin's approvals (nil if it has none).
func (v *Vetter) approved(p *plugin.Plugin) (Approved, error) {
	if v.o.Store == nil {
		return nil, nil
	}
	all, err := ParseLines(v.o.Store.Decls())
	if err != nil {
		return nil, err
	}
	return v.o.Record.Lookup(all, p), nil
}

// record writes decls as the plugin's approved declarations, under rec.
func (v *Vetter) record(plugin, rec string, decls []Decl, why string) error {
	lines := make([]string, len(decls))
	for i, d := range decls {
		lines[i] = FormatLine(rec, d.Key, d.Print)
	}
	if err := v.o.Store.SetDecls(rec, lines); err != nil {
		return err
	}
	v.o.Logger.Info("declarations recorded", "plugin", plugin, "declarations", len(decls), "why", why)
	for _, d := range decls {
		v.event(Event{Kind: "approval", Plugin: plugin, Decl: d.Key, Detail: why})
	}
	return nil
}

// Approve records every declaration of e that is not refused for hidden
// text as approved (mcpwasm trust), under key's name for the plugin, and
// returns them.
func Approve(st Store, e *registry.Entry, key Keyer) ([]Decl, error) {
	decls, err := Decls(e)
	if err != nil {
		return nil, err
	}
	var ok []Decl
	lines := []string{}
	for _, d := range decls {
		if d.refusal() != "" {
			continue
		}
		ok = append(ok, d)
		lines = append(lines, FormatLine(key.Of(e.Plugin), d.Key, d.Print))
	}
	return ok, st.SetDecls(key.Of(e.Plugin), lines)
}

func (v *Vetter) once(plugin string, d Decl, why string, f func()) {
	k := plugin + "\x00" + string(d.Kind) + "\x00" + d.Name + "\x00" + d.Print.Sum + "\x00" + why
	v.mu.Lock()
	seen := v.logged[k]
	v.logged[k] = true
	v.mu.Unlock()
	if !seen {
		f()
	}
}

func (v *Vetter) event(e Event) {
	if v.o.Events != nil {
		v.o.Events(e)
	}
}

func (v *Vetter) setHeld(plugin string, holds []Hold) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(holds) == 0 {
		delete(v.held, plugin)
		return
	}
	m := make(map[Key]Hold, len(holds))
	for _, h := range holds {
		m[h.Key] = h
	}
	v.held[plugin] = m
}

// Held returns the hold on the declaration clients see as kind and name,
// if one is held.
func (v *Vetter) Held(kind fingerprint.Kind, name string) (Hold, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, m := range v.held {
		if h, ok := m[Key{Kind: kind, Name: name}]; ok {
			return h, true
		}
	}
	return Hold{}, false
}

// Pending reports whether a plugin has declarations held.
func (v *Vetter) Pending(plugin string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.held[plugin]) > 0
}

// Holds returns every hold, sorted by plugin, kind and name.
func (v *Vetter) Holds() []Hold {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []Hold
	for _, m := range v.held {
		for _, h := range m {
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Plugin != b.Plugin {
			return a.Plugin < b.Plugin
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	return out
}

// Forget drops a plugin's holds (it was removed).
func (v *Vetter) Forget(plugin string) { v.setHeld(plugin, nil) }

// HeldError is the message a call to a held tool (or a read of a held
// resource, a get of a held prompt) gets.
func (v *Vetter) HeldError(h Hold) string {
	return fmt.Sprintf("%s is held: %s; it is served once approved: run %q, then reload the server (SIGHUP); for a development run, %q",
		h.Key, h.Why(), v.o.Approve+" "+h.Plugin, "mcpwasm serve --trust off")
}
