// Package reach says what a request reaches among the plugins'
// declarations — the tool it calls, the prompt it gets, the resources it
// reads or subscribes to, what it completes — and filters list results.
// Both gates of package server use it, so they agree on what they gate:
// bearer scopes (RequireScopes) and Cedar policies (SetPolicy).
package reach

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Registry is where targets are looked up: *registry.Registry.
type Registry interface {
	Lookup(name string) (*registry.Tool, bool)
	LookupPrompt(name string) (*registry.Prompt, bool)
	ResourceOwner(uri string) (*plugin.Plugin, bool)
	TemplateOwner(uriTemplate string) (*plugin.Plugin, bool)
	MatchedTemplate(uri string) string
}

// Target is one declaration a request reaches, or a list shows.
type Target struct {
	// What names it in an error: `tool "x"`, `resource "u"`...
	What string
	// Plugin serves it.
	Plugin *plugin.Plugin
	// Tool is set for a tool, Prompt for a prompt; for a resource or a
	// template both are nil and URI is set.
	Tool   *registry.Tool
	Prompt *registry.Prompt
	// URI is a resource's URI or a template's URI template; Template is
	// the template a resource's URI matched (a template's own, for a
	// template; "" in a resources list).
	URI, Template string
	// Complete: the request completes an argument of the prompt or
	// resource rather than using it.
	Complete bool
	// Args are a tool call's arguments; StringArgs a prompt's arguments or
	// a completion's context arguments (never nil for those).
	Args       json.RawMessage
	StringArgs map[string]string
}

// ToolName is the tool's name, "" for anything else.
func (t Target) ToolName() string {
	if t.Tool != nil {
		return t.Tool.Def.Name
	}
	return ""
}

// Of lists what req reaches: none for a request that reaches nothing the
// gates decide, or names nothing served (its handler answers that); each
// resource for subscriptions/listen.
func Of(reg Registry, req mcp.Request) []Target {
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r.Params != nil {
			if t, ok := reg.Lookup(r.Params.Name); ok {
				return []Target{{What: fmt.Sprintf("tool %q", t.Def.Name), Plugin: t.Plugin, Tool: t, Args: r.Params.Arguments}}
			}
		}
	case *mcp.GetPromptRequest:
		if r.Params != nil {
			if p, ok := reg.LookupPrompt(r.Params.Name); ok {
				return []Target{{What: fmt.Sprintf("prompt %q", p.Def.Name), Plugin: p.Plugin, Prompt: p, StringArgs: nonNil(r.Params.Arguments)}}
			}
		}
	case *mcp.ReadResourceRequest:
		if r.Params != nil {
			return resource(reg, r.Params.URI)
		}
	case *mcp.SubscribeRequest:
		if r.Params != nil {
			return resource(reg, r.Params.URI)
		}
	case *mcp.SubscriptionsListenRequest:
		var out []Target
		if r.Params != nil && r.Params.Notifications != nil {
			for _, uri := range r.Params.Notifications.ResourceSubscriptions {
				out = append(out, resource(reg, uri)...)
			}
		}
		return out
	case *mcp.CompleteRequest:
		if r.Params != nil && r.Params.Ref != nil {
			return completed(reg, r.Params)
		}
	}
	return nil
}

// completed is what a completion/complete reaches: as registry.Complete
// resolves it, a prompt by name, or a template named exactly, else the
// owner of a URI.
func completed(reg Registry, p *mcp.CompleteParams) []Target {
	var given map[string]string
	if p.Context != nil {
		given = p.Context.Arguments
	}
	given = nonNil(given)
	switch uri := p.Ref.URI; p.Ref.Type {
	case "ref/prompt":
		if pr, ok := reg.LookupPrompt(p.Ref.Name); ok {
			return []Target{{What: fmt.Sprintf("prompt %q", pr.Def.Name), Plugin: pr.Plugin, Prompt: pr, Complete: true, StringArgs: given}}
		}
	case "ref/resource":
		if pl, ok := reg.TemplateOwner(uri); ok {
			return []Target{{What: fmt.Sprintf("resource template %q", uri), Plugin: pl, URI: uri, Template: uri, Complete: true, StringArgs: given}}
		}
		if pl, ok := reg.ResourceOwner(uri); ok {
			return []Target{{What: fmt.Sprintf("resource %q", uri), Plugin: pl, URI: uri, Template: reg.MatchedTemplate(uri), Complete: true, StringArgs: given}}
		}
	}
	return nil
}

// resource is what a read of (or subscription to) uri reaches.
func resource(reg Registry, uri string) []Target {
	pl, ok := reg.ResourceOwner(uri)
	if !ok {
		return nil
	}
	return []Target{{What: fmt.Sprintf("resource %q", uri), Plugin: pl, URI: uri, Template: reg.MatchedTemplate(uri)}}
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// Filter returns a copy of a list result (tools, prompts, resources,
// resource templates) without what keep refuses; an entry no plugin
// serves any longer is kept (its request will say so). Any other result
// is returned as it is.
func Filter(reg Registry, res mcp.Result, keep func(Target) bool) mcp.Result {
	switch lr := res.(type) {
	case *mcp.ListToolsResult:
		cp := *lr
		cp.Tools = filter(lr.Tools, func(d *mcp.Tool) bool {
			t, ok := reg.Lookup(d.Name)
			return !ok || keep(Target{What: fmt.Sprintf("tool %q", d.Name), Plugin: t.Plugin, Tool: t})
		})
		return &cp
	case *mcp.ListPromptsResult:
		cp := *lr
		cp.Prompts = filter(lr.Prompts, func(d *mcp.Prompt) bool {
			p, ok := reg.LookupPrompt(d.Name)
			return !ok || keep(Target{What: fmt.Sprintf("prompt %q", d.Name), Plugin: p.Plugin, Prompt: p})
		})
		return &cp
	case *mcp.ListResourcesResult:
		cp := *lr
		cp.Resources = filter(lr.Resources, func(d *mcp.Resource) bool {
			pl, ok := reg.ResourceOwner(d.URI)
			return !ok || keep(Target{What: fmt.Sprintf("resource %q", d.URI), Plugin: pl, URI: d.URI})
		})
		return &cp
	case *mcp.ListResourceTemplatesResult:
		cp := *lr
		cp.ResourceTemplates = filter(lr.ResourceTemplates, func(d *mcp.ResourceTemplate) bool {
			pl, ok := reg.TemplateOwner(d.URITemplate)
			return !ok || keep(Target{What: fmt.Sprintf("resource template %q", d.URITemplate), Plugin: pl, URI: d.URITemplate, Template: d.URITemplate})
		})
		return &cp
	}
	return res
}

func filter[T any](in []T, ok func(T) bool) []T {
	out := make([]T, 0, len(in))
	for _, v := range in {
		if ok(v) {
			out = append(out, v)
		}
	}
	return out
}

// Named is the declaration a request names, served or not: the tool a
// tools/call calls, the prompt of prompts/get or of a completion, the URI
// (or, for a completion, the template) read, subscribed to or completed.
// ok is false for a request that names none.
func Named(req mcp.Request) (k registry.Kind, name string, ok bool) {
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r.Params != nil {
			return registry.KindTool, r.Params.Name, true
		}
	case *mcp.GetPromptRequest:
		if r.Params != nil {
			return registry.KindPrompt, r.Params.Name, true
		}
	case *mcp.ReadResourceRequest:
		if r.Params != nil {
			return registry.KindResource, r.Params.URI, true
		}
	case *mcp.SubscribeRequest:
		if r.Params != nil {
			return registry.KindResource, r.Params.URI, true
		}
	case *mcp.CompleteRequest:
		if r.Params != nil && r.Params.Ref != nil {
			switch r.Params.Ref.Type {
			case "ref/prompt":
				return registry.KindPrompt, r.Params.Ref.Name, true
			case "ref/resource":
				return registry.KindResource, r.Params.Ref.URI, true
			}
		}
	}
	return 0, "", false
}

// Owner is the plugin serving the tool, prompt or resource (by URI) of
// kind k named name.
func Owner(reg Registry, k registry.Kind, name string) (*plugin.Plugin, bool) {
	switch k {
	case registry.KindTool:
		if t, ok := reg.Lookup(name); ok {
			return t.Plugin, true
		}
	case registry.KindPrompt:
		if p, ok := reg.LookupPrompt(name); ok {
			return p.Plugin, true
		}
	case registry.KindResource:
		return reg.ResourceOwner(name)
	}
	return nil, false
}
