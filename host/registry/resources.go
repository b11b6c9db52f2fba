package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Resource is a concrete resource, exposed under the URI its plugin declared.
type Resource struct {
	Def    *mcp.Resource
	Plugin *plugin.Plugin
	// File is set for a skill's file (skill.go): the host serves it.
	File *SkillFile
}

// Template is a resource template, exposed exactly as declared.
type Template struct {
	Def    *mcp.ResourceTemplate
	Plugin *plugin.Plugin
	re     *regexp.Regexp
	tmpl   *uritemplate.Template
}

func (t *Template) match(uri string) bool { return t.re.MatchString(uri) }

// overlap reports whether some URI could match both templates: each
// template's own example (every variable set to "x") is tried on the other.
func overlap(a, b *Template) bool {
	if a.Def.URITemplate == b.Def.URITemplate {
		return true
	}
	return b.match(example(a.tmpl)) || a.match(example(b.tmpl))
}

func example(t *uritemplate.Template) string {
	vals := uritemplate.Values{}
	for _, n := range t.Varnames() {
		vals.Set(n, uritemplate.String("x"))
	}
	s, _ := t.Expand(vals)
	return s
}

func readResources(ctx context.Context, p *plugin.Plugin) ([]*Resource, error) {
	defs, err := readDefs[mcp.Resource](ctx, p, abi.ExportListResources, "resources", "resource")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []*Resource
	for i := range defs {
		def := &defs[i]
		if def.URI == "" || def.Name == "" {
			return nil, fmt.Errorf("list_resources: resource #%d needs a uri and a name", i)
		}
		if seen[def.URI] {
			return nil, fmt.Errorf("list_resources: resource %q is declared twice", def.URI)
		}
		seen[def.URI] = true
		out = append(out, &Resource{Def: def, Plugin: p})
	}
	return out, nil
}

func readTemplates(ctx context.Context, p *plugin.Plugin) ([]*Template, error) {
	defs, err := readDefs[mcp.ResourceTemplate](ctx, p, abi.ExportListResourceTemplates, "resourceTemplates", "template")
	if err != nil {
		return nil, err
	}
	var out []*Template
	for i := range defs {
		def := &defs[i]
		if def.URITemplate == "" || def.Name == "" {
			return nil, fmt.Errorf("list_resource_templates: template #%d needs a uriTemplate and a name", i)
		}
		tmpl, err := uritemplate.New(def.URITemplate)
		if err != nil {
			return nil, fmt.Errorf("list_resource_templates: template %q: %v", def.URITemplate, err)
		}
		t := &Template{Def: def, Plugin: p, tmpl: tmpl, re: tmpl.Regexp()}
		for _, prev := range out {
			if overlap(t, prev) {
				return nil, fmt.Errorf("list_resource_templates: templates %q and %q overlap", def.URITemplate, prev.Def.URITemplate)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// Resources returns every concrete resource, sorted by URI.
func (r *Registry) Resources() []*Resource {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return byKey(r.resources)
}

// Templates returns every resource template, sorted.
func (r *Registry) Templates() []*Template {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return byKey(r.templates)
}

// ResourceOwner returns the plugin serving uri: the plugin that declared it,
// or whose template matches it.
func (r *Registry) ResourceOwner(uri string) (*plugin.Plugin, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if x, ok := r.resources[uri]; ok {
		return x.Plugin, true
	}
	if t := r.matchTemplate(uri); t != nil {
		return t.Plugin, true
	}
	return nil, false
}

// matchTemplate returns the template uri is read through: of those it
// matches, the first by URI template (byte-wise). The load-time overlap
// check is a heuristic, so a URI may match templates of several plugins;
// every lookup (the scope check, the read, the metrics label) must then
// pick the same one, which map order would not. r.mu is held.
func (r *Registry) matchTemplate(uri string) *Template {
	var best *Template
	for name, t := range r.templates {
		if (best == nil || name < best.Def.URITemplate) && t.match(uri) {
			best = t
		}
	}
	return best
}

// MatchedTemplate returns the URI template that uri is read through, or ""
// for a resource declared by its own URI or not served at all. Metrics
// label reads by it, since the URIs themselves come from clients.
func (r *Registry) MatchedTemplate(uri string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if _, ok := r.resources[uri]; ok {
		return ""
	}
	if t := r.matchTemplate(uri); t != nil {
		return t.Def.URITemplate
	}
	return ""
}

// TemplateOwner returns the plugin that declared a template.
func (r *Registry) TemplateOwner(uriTemplate string) (*plugin.Plugin, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.templates[uriTemplate]
	if !ok {
		return nil, false
	}
	return t.Plugin, true
}

// ErrNotFound is returned for a resource or prompt nobody serves, and wrapped
// when a guest reports one missing.
var ErrNotFound = errors.New("not found")

// ReadResource reads uri from the plugin that owns it. A guest failure is a
// Go error: resources answer failures with JSON-RPC errors, not results.
func (r *Registry) ReadResource(ctx context.Context, uri string, inv Invocation) (*mcp.ReadResourceResult, error) {
	p, ok := r.ResourceOwner(uri)
	if !ok {
		return nil, fmt.Errorf("resource %q: %w", uri, ErrNotFound)
	}
	if f := r.skillFile(uri); f != nil {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{f.Contents()}}, nil
	}
	in, err := envelope(inv.RequestInfo, p, map[string]string{"uri": uri}, abi.Context{Mounts: inv.Mounts})
	if err != nil {
		return nil, err
	}
	out, cerr := p.InvokeWith(ctx, abi.ExportReadResource, in, inv.options())
	if cerr != nil {
		if cerr.Category == abi.ErrGuest && strings.Contains(strings.ToLower(cerr.Message), "not found") {
			return nil, fmt.Errorf("resource %q: %w (%s)", uri, ErrNotFound, cerr.Message)
		}
		return nil, fmt.Errorf("plugin %q could not read %q: %s", p.Name(), uri, cerr.Message)
	}
	var res mcp.ReadResourceResult
	if err := json.Unmarshal(lenientTTL(out), &res); err != nil {
		return nil, fmt.Errorf("plugin %q returned a malformed ReadResourceResult for %q: %v", p.Name(), uri, err)
	}
	if len(res.Contents) == 0 {
		return nil, fmt.Errorf("plugin %q returned no contents for %q", p.Name(), uri)
	}
	// A guest answers for its own resources only: contents labelled with a
	// URI another plugin serves (a client would file them under it) or
	// with none are refused. Other URIs (the entries of a listing) pass.
	for _, c := range res.Contents {
		if c == nil || c.URI == "" {
			return nil, fmt.Errorf("plugin %q returned contents without a uri for %q", p.Name(), uri)
		}
		if owner, ok := r.ResourceOwner(c.URI); ok && owner != p {
			return nil, fmt.Errorf("plugin %q answered %q with contents labelled %q, a resource plugin %q serves: refused", p.Name(), uri, c.URI, owner.Name())
		}
	}
	return &res, nil
}

// lenientTTL rewrites a read result's ttlMs that is not an integer go-sdk
// can decode (a fraction, an exponent, a number past int64, a string) as
// the nearest integer in [0, MaxInt32], or drops it when it is not a
// number at all: a cache hint is clamped, never a reason to fail the read.
// The server clamps it further.
func lenientTTL(out []byte) []byte {
	if !bytes.Contains(out, []byte(`"ttlMs"`)) {
		return out
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(out, &m) != nil {
		return out
	}
	raw, ok := m["ttlMs"]
	if !ok {
		return out
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		delete(m, "ttlMs")
	} else {
		f, _ := strconv.ParseFloat(n.String(), 64) // ±Inf past the range
		switch {
		case f != f || f < 0:
			f = 0
		case f > math.MaxInt32:
			f = math.MaxInt32
		}
		m["ttlMs"] = json.RawMessage(strconv.FormatInt(int64(f), 10))
	}
	b, err := json.Marshal(m)
	if err != nil {
		return out
	}
	return b
}
