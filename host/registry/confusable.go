package registry

import (
	"fmt"

	"github.com/mcpwasm/mcpwasm/host/hiddentext"
)

// confusable refuses a tool or prompt of e whose exposed name looks like a
// different name another plugin serves: the same Unicode TR39 skeleton
// ("fi1es_read" and "files_read"). Like any collision, the plugin of the
// better rank keeps its name. r.mu must be held.
func (r *Registry) confusable(e *Entry) error {
	if len(e.Tools) > 0 && len(r.tools) > 0 {
		served := make(map[string]*Tool, len(r.tools))
		for _, t := range r.tools {
			served[t.skelOf()] = t
		}
		for _, t := range e.Tools {
			if prev, ok := served[t.skelOf()]; ok && prev.Plugin != e.Plugin && prev.Def.Name != t.Def.Name {
				return fmt.Errorf("tool %q looks like tool %q from plugin %q (Unicode TR39 skeleton %q); rename one, or set hidden_text = \"warn\" on this plugin",
					t.Def.Name, prev.Def.Name, prev.Plugin.Name(), t.skelOf())
			}
		}
	}
	if len(e.Prompts) > 0 && len(r.prompts) > 0 {
		served := make(map[string]*Prompt, len(r.prompts))
		for _, p := range r.prompts {
			served[p.skelOf()] = p
		}
		for _, p := range e.Prompts {
			if prev, ok := served[p.skelOf()]; ok && prev.Plugin != e.Plugin && prev.Def.Name != p.Def.Name {
				return fmt.Errorf("prompt %q looks like prompt %q from plugin %q (Unicode TR39 skeleton %q); rename one, or set hidden_text = \"warn\" on this plugin",
					p.Def.Name, prev.Def.Name, prev.Plugin.Name(), p.skelOf())
			}
		}
	}
	return nil
}

// skelOf is the exposed name's skeleton (computed here for a Tool built
// outside checkTool).
func (t *Tool) skelOf() string {
	if t.skel == "" {
		t.skel = hiddentext.Skeleton(t.Def.Name)
	}
	return t.skel
}

func (p *Prompt) skelOf() string {
	if p.skel == "" {
		p.skel = hiddentext.Skeleton(p.Def.Name)
	}
	return p.skel
}
