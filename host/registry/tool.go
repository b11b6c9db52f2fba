package registry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/hiddentext"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools: read from a plugin's list, checked, exposed under a name.

// Tool is one tool as clients see it, bound to the plugin that serves it.
type Tool struct {
	// Def is the definition served in tools/list; Def.Name is the exposed name.
	Def *mcp.Tool
	// Declared is the name the plugin declared, which the guest receives.
	Declared string
	// Plugin serves the tool.
	Plugin *plugin.Plugin
	// Task says whether the tool runs as a task (io.modelcontextprotocol/tasks),
	// from the declaration's "execution" object (ABI.md §2).
	Task TaskSupport

	schema *jsonschema.Resolved
	legacy bool
	skel   string // the exposed name's TR39 skeleton
}

// Lookup returns the tool exposed under name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Tools returns every tool, sorted by exposed name.
func (r *Registry) Tools() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return byKey(r.tools)
}

// readTools calls the plugin's tool-list export and checks each tool.
func readTools(ctx context.Context, p *plugin.Plugin, opts AddOptions) ([]*Tool, error) {
	export, legacy := abi.ExportListTools, false
	if !p.Exports(abi.ExportListTools) || !p.Exports(abi.ExportCallTool) {
		if !p.Exports(abi.ExportDescribe) || !p.Exports(abi.ExportCall) {
			return nil, nil // a plugin without tools (resources or prompts only)
		}
		export, legacy = abi.ExportDescribe, true
	}
	raws, err := readList(ctx, p, export, "tools", !legacy)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var tools []*Tool
	for i, raw := range raws {
		t, err := checkTool(p, raw, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: tool #%d: %w", export, i, err)
		}
		if seen[t.Declared] {
			return nil, fmt.Errorf("%s: tool %q is declared twice", export, t.Declared)
		}
		seen[t.Declared] = true
		t.legacy = legacy
		tools = append(tools, t)
	}
	return tools, nil
}

func checkTool(p *plugin.Plugin, raw json.RawMessage, opts AddOptions) (*Tool, error) {
	var def mcp.Tool
	if err := json.Unmarshal(raw, &def); err != nil {
		return nil, fmt.Errorf("not a valid Tool: %v", err)
	}
	declared := def.Name
	if declared == "" {
		return nil, fmt.Errorf("has no name")
	}
	exposed := Exposed(p.Name(), declared, opts)
	if !ValidName(exposed) {
		return nil, fmt.Errorf("tool %q: exposed name %q must be 1-64 characters of A-Z a-z 0-9 _ -", declared, exposed)
	}
	def.Name = exposed
	schemaJSON, err := json.Marshal(def.InputSchema)
	if err != nil || def.InputSchema == nil {
		return nil, fmt.Errorf("tool %q: missing inputSchema", declared)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		return nil, fmt.Errorf("tool %q: inputSchema is not a JSON Schema: %v", declared, err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf(`tool %q: inputSchema must have "type": "object"`, declared)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tool %q: inputSchema does not resolve: %v", declared, err)
	}
	def.InputSchema = json.RawMessage(schemaJSON)
	if def.OutputSchema != nil {
		b, err := json.Marshal(def.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %q: bad outputSchema: %v", declared, err)
		}
		def.OutputSchema = json.RawMessage(b)
	}
	task, err := taskSupport(raw)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %v", declared, err)
	}
	if m, ok := p.Config().TaskModes[declared]; ok && ValidMode(m) {
		task.Mode = m // the operator's setting
	}
	return &Tool{Def: &def, Declared: declared, Plugin: p, schema: resolved, Task: task, skel: hiddentext.Skeleton(exposed)}, nil
}
