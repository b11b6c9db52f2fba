package registry

import (
	"fmt"

	"github.com/mcpwasm/mcpwasm/host/hiddentext"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// confusable refuses a tool or prompt of e whose exposed name looks like a
// different name another plugin serves: the same Unicode TR39 skeleton
// ("fi1es_read" and "files_read"). Like any collision, the plugin of the
// better rank keeps its name. r.mu must be held.
func (r *Registry) confusable(e *Entry) error {
	if err := lookalike("tool", e.Plugin, e.Tools, r.tools); err != nil {
		return err
	}
	return lookalike("prompt", e.Plugin, e.Prompts, r.prompts)
}

// named is a declaration confusable compares: its exposed name, that
// name's skeleton and the plugin serving it.
type named interface {
	exposed() string
	skelOf() string
	owner() *plugin.Plugin
}

// lookalike refuses a declaration of added (from plugin p) whose exposed
// name has the skeleton of a different name another plugin serves.
func lookalike[T named](kind string, p *plugin.Plugin, added []T, served map[string]T) error {
	if len(added) == 0 || len(served) == 0 {
		return nil
	}
	bySkel := make(map[string]T, len(served))
	for _, s := range served {
		bySkel[s.skelOf()] = s
	}
	for _, a := range added {
		if prev, ok := bySkel[a.skelOf()]; ok && prev.owner() != p && prev.exposed() != a.exposed() {
			return fmt.Errorf("%s %q looks like %s %q from plugin %q (Unicode TR39 skeleton %q); rename one, or set hidden_text = \"warn\" on this plugin",
				kind, a.exposed(), kind, prev.exposed(), prev.owner().Name(), a.skelOf())
		}
	}
	return nil
}

// skeleton is name's skeleton, computed once into *cache (for a Tool or
// Prompt built outside checkTool).
func skeleton(cache *string, name string) string {
	if *cache == "" {
		*cache = hiddentext.Skeleton(name)
	}
	return *cache
}

func (t *Tool) skelOf() string          { return skeleton(&t.skel, t.Def.Name) }
func (t *Tool) exposed() string         { return t.Def.Name }
func (t *Tool) owner() *plugin.Plugin   { return t.Plugin }
func (p *Prompt) skelOf() string        { return skeleton(&p.skel, p.Def.Name) }
func (p *Prompt) exposed() string       { return p.Def.Name }
func (p *Prompt) owner() *plugin.Plugin { return p.Plugin }
