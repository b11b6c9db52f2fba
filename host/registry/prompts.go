package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/hiddentext"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompt is one prompt as clients see it.
type Prompt struct {
	// Def is served in prompts/list; Def.Name is the exposed name.
	Def *mcp.Prompt
	// Declared is the name the plugin declared.
	Declared string
	Plugin   *plugin.Plugin
	skel     string // the exposed name's TR39 skeleton
}

func readPrompts(ctx context.Context, p *plugin.Plugin, opts AddOptions) ([]*Prompt, error) {
	defs, err := readDefs[mcp.Prompt](ctx, p, abi.ExportListPrompts, "prompts", "prompt")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []*Prompt
	for i := range defs {
		def := &defs[i]
		declared := def.Name
		exposed := Exposed(p.Name(), declared, opts)
		if declared == "" || !ValidName(exposed) {
			return nil, fmt.Errorf("list_prompts: prompt %q: exposed name %q must be 1-64 characters of A-Z a-z 0-9 _ -", declared, exposed)
		}
		if seen[declared] {
			return nil, fmt.Errorf("list_prompts: prompt %q is declared twice", declared)
		}
		seen[declared] = true
		def.Name = exposed
		out = append(out, &Prompt{Def: def, Declared: declared, Plugin: p, skel: hiddentext.Skeleton(exposed)})
	}
	return out, nil
}

// Prompts returns every prompt, sorted by exposed name.
func (r *Registry) Prompts() []*Prompt {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return byKey(r.prompts)
}

// LookupPrompt returns the prompt exposed under name.
func (r *Registry) LookupPrompt(name string) (*Prompt, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.prompts[name]
	return p, ok
}

// MissingArguments names the arguments the prompt declares required that
// args lacks, in declared order: prompts/get is refused with them before
// the plugin runs, as a tool's arguments are checked against its schema.
func (pr *Prompt) MissingArguments(args map[string]string) []string {
	var out []string
	for _, a := range pr.Def.Arguments {
		if a == nil || !a.Required {
			continue
		}
		if _, ok := args[a.Name]; !ok {
			out = append(out, a.Name)
		}
	}
	return out
}

// Get runs the plugin's get_prompt. A failure is a Go error (a JSON-RPC
// error for the client).
func (pr *Prompt) Get(ctx context.Context, args map[string]string, inv Invocation) (*mcp.GetPromptResult, error) {
	in, err := envelope(inv.RequestInfo, pr.Plugin, map[string]any{"name": pr.Declared, "arguments": args}, abi.Context{})
	if err != nil {
		return nil, err
	}
	out, cerr := pr.Plugin.InvokeWith(ctx, abi.ExportGetPrompt, in, inv.options())
	if cerr != nil {
		if cerr.Category == abi.ErrGuest && strings.Contains(strings.ToLower(cerr.Message), "not found") {
			return nil, fmt.Errorf("prompt %q: %w (%s)", pr.Def.Name, ErrNotFound, cerr.Message)
		}
		return nil, fmt.Errorf("prompt %q failed: %s", pr.Def.Name, cerr.Message)
	}
	var res mcp.GetPromptResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("prompt %q: the plugin returned a malformed GetPromptResult: %v", pr.Def.Name, err)
	}
	return &res, nil
}

// Complete routes a completion/complete to the plugin owning the referenced
// prompt or template. Plugins without a complete export offer nothing.
func (r *Registry) Complete(ctx context.Context, params *mcp.CompleteParams, inv Invocation) (*mcp.CompleteResult, error) {
	empty := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if params == nil || params.Ref == nil {
		return empty, nil
	}
	var p *plugin.Plugin
	ref := *params.Ref
	switch ref.Type {
	case "ref/prompt":
		pr, ok := r.LookupPrompt(ref.Name)
		if !ok {
			return nil, fmt.Errorf("prompt %q: %w", ref.Name, ErrNotFound)
		}
		p, ref.Name = pr.Plugin, pr.Declared
	case "ref/resource":
		var ok bool
		if p, ok = r.TemplateOwner(ref.URI); !ok {
			if p, ok = r.ResourceOwner(ref.URI); !ok {
				return nil, fmt.Errorf("resource %q: %w", ref.URI, ErrNotFound)
			}
		}
	default:
		return empty, nil
	}
	if !p.Exports(abi.ExportComplete) {
		return empty, nil
	}
	req := *params
	req.Ref = &ref
	in, err := envelope(inv.RequestInfo, p, &req, abi.Context{})
	if err != nil {
		return nil, err
	}
	out, cerr := p.InvokeWith(ctx, abi.ExportComplete, in, inv.options())
	if cerr != nil {
		return nil, fmt.Errorf("completion by plugin %q failed: %s", p.Name(), cerr.Message)
	}
	var res mcp.CompleteResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("plugin %q returned a malformed CompleteResult: %v", p.Name(), err)
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return &res, nil
}
