// Package entity turns a request's principal (a verified token) and what
// the registry serves into the policy's entities (policy.Principal,
// policy.Target), and generates the policy schema for them. It
// sits between host/policy, which knows nothing of MCP or plugins, and
// its users: the server (enforcement), validate and `mcpwasm policy test`.
package entity

import (
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/policy"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Principal is the policy's principal for a verified token (info), or for
// a request without one: policy.StdioName over stdio, policy.AnonymousName
// over HTTP without authentication. A JWT's claims, issuer and groups are
// in info.Extra as host/bearer puts them there ("claims", "issuer",
// "groups"); "kind" says how the token was checked ("static" or "jwt").
func Principal(info *auth.TokenInfo, transport string) *policy.Principal {
	if info == nil {
		name := policy.AnonymousName
		if transport == "stdio" {
			name = policy.StdioName
		}
		return &policy.Principal{Name: name, Auth: "none", Transport: transport}
	}
	p := &policy.Principal{Name: info.UserID, Scopes: info.Scopes, Auth: "static", Transport: transport}
	if k, ok := info.Extra["kind"].(string); ok && k != "" {
		p.Auth = k
	}
	p.Issuer, _ = info.Extra["issuer"].(string)
	p.Groups, _ = info.Extra["groups"].([]string)
	p.Claims, _ = info.Extra["claims"].(map[string]any)
	return p
}

// Facts says what is known of a plugin beyond the plugin itself: its
// signature state (by its source) and its trust state. Either may be nil.
type Facts struct {
	// Signature returns the signature state of a plugin's source:
	// "verified", "unsigned", "not checked" or "none"; "" counts as
	// "unsigned" (a local file).
	Signature func(source string) string
	// Trust returns a plugin's trust state ("" until the trust feature
	// exists; the hook is here so it can fill policy.Plugin.Trust).
	Trust func(plugin string) string
}

// Plugin describes a plugin for the policy.
func (f *Facts) Plugin(p *plugin.Plugin) policy.Plugin {
	if p == nil {
		return policy.Plugin{}
	}
	src := p.Config().Source
	out := policy.Plugin{Name: p.Name(), Source: src, Digest: "sha256:" + p.SHA256(), Signature: "unsigned"}
	if f != nil && f.Signature != nil {
		if s := f.Signature(src); s != "" {
			out.Signature = s
		}
	}
	if f != nil && f.Trust != nil {
		out.Trust = f.Trust(p.Name())
	}
	return out
}

// Tool is the target of a tools/call.
func (f *Facts) Tool(t *registry.Tool) policy.Target {
	a := policy.DefaultAnnotations
	if an := t.Def.Annotations; an != nil {
		a = policy.ToolAnnotations(an.ReadOnlyHint, an.DestructiveHint, an.IdempotentHint, an.OpenWorldHint)
	}
	return policy.Target{Type: policy.TypeTool, Name: t.Def.Name, Declared: t.Declared, Annotations: a, Plugin: f.Plugin(t.Plugin)}
}

// Prompt is the target of a prompts/get (or a completion of its arguments).
func (f *Facts) Prompt(p *registry.Prompt) policy.Target {
	return policy.Target{Type: policy.TypePrompt, Name: p.Def.Name, Declared: p.Declared, Plugin: f.Plugin(p.Plugin)}
}

// Resource is the target of a resources/read of uri served by pl, through
// template ("" for a resource served as it is).
func (f *Facts) Resource(uri, template string, pl *plugin.Plugin) policy.Target {
	return policy.Target{Type: policy.TypeResource, Name: uri, Declared: uri, Template: template, Plugin: f.Plugin(pl)}
}

// Schema generates the policy schema for what reg serves: the entity model
// with context.arguments typed from every tool's input schema and every
// prompt's arguments.
func Schema(reg *registry.Registry) policy.Generated {
	var args []policy.ToolArgs
	for _, t := range reg.Tools() {
		b, _ := json.Marshal(t.Def.InputSchema)
		args = append(args, policy.ToolArgs{Name: t.Def.Name, InputSchema: b})
	}
	for _, p := range reg.Prompts() {
		a := policy.ToolArgs{Name: p.Def.Name}
		for _, arg := range p.Def.Arguments {
			a.StringArgs = append(a.StringArgs, arg.Name)
		}
		args = append(args, a)
	}
	return policy.GenerateSchema(args)
}
