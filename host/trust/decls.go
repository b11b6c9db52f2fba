package trust

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/host/fingerprint"
	"github.com/mcpwasm/mcpwasm/host/hiddentext"
	"github.com/mcpwasm/mcpwasm/host/registry"
)

// Decl is one declaration of a plugin as served, with its fingerprint and
// the hidden characters in it.
type Decl struct {
	Key
	// JSON is the declaration as go-sdk serves it.
	JSON []byte
	// Print is its fingerprint.
	Print fingerprint.Print
	// Hidden are the hidden characters in its strings (names included).
	Hidden []hiddentext.Finding
	// Confusable names the exposed name of the same plugin this one's name
	// looks like (TR39 skeleton), if any.
	Confusable string

	keep func(*registry.Entry) // adds the declaration to an entry
}

// Decls fingerprints and checks every declaration of e: tools, prompts,
// resources, resource templates, in that order.
func Decls(e *registry.Entry) ([]Decl, error) {
	var out []Decl
	add := func(kind fingerprint.Kind, name string, def any, keep func(*registry.Entry)) error {
		raw, err := json.Marshal(def)
		if err != nil {
			return fmt.Errorf("%s %q: %w", kind, name, err)
		}
		p, err := fingerprint.OfJSON(raw)
		if err != nil {
			return fmt.Errorf("%s %q: %w", kind, name, err)
		}
		out = append(out, Decl{Key: Key{Kind: kind, Name: name}, JSON: raw, Print: p, Hidden: hiddentext.CheckJSON(raw), keep: keep})
		return nil
	}
	for _, t := range e.Tools {
		if err := add(fingerprint.Tool, t.Def.Name, t.Def, func(n *registry.Entry) { n.Tools = append(n.Tools, t) }); err != nil {
			return nil, err
		}
	}
	for _, p := range e.Prompts {
		if err := add(fingerprint.Prompt, p.Def.Name, p.Def, func(n *registry.Entry) { n.Prompts = append(n.Prompts, p) }); err != nil {
			return nil, err
		}
	}
	for _, r := range e.Resources {
		if err := add(fingerprint.Resource, r.Def.URI, r.Def, func(n *registry.Entry) { n.Resources = append(n.Resources, r) }); err != nil {
			return nil, err
		}
		if f := r.File; f != nil && !f.Binary {
			// A skill's file is read by the model as written: its text is
			// checked as the declaration's strings are (its digest, in the
			// declaration's _meta, pins it).
			d := &out[len(out)-1]
			d.Hidden = append(d.Hidden, bodyHidden(string(f.Data))...)
		}
	}
	for _, t := range e.Templates {
		if err := add(fingerprint.Template, t.Def.URITemplate, t.Def, func(n *registry.Entry) { n.Templates = append(n.Templates, t) }); err != nil {
			return nil, err
		}
	}
	// Tool and prompt names that look like another of the same kind.
	for _, kind := range []fingerprint.Kind{fingerprint.Tool, fingerprint.Prompt} {
		var names []string
		at := map[string]int{}
		for i, d := range out {
			if d.Kind == kind {
				names = append(names, d.Name)
				at[d.Name] = i
			}
		}
		for _, c := range hiddentext.Confusable(names) {
			out[at[c.Name]].Confusable = c.Like
		}
	}
	return out, nil
}

// bodyHidden are the hidden characters in a skill file's text, under the
// field "text". A carriage return that ends a line (CRLF) is not hidden.
func bodyHidden(text string) []hiddentext.Finding {
	var out []hiddentext.Finding
	for _, f := range hiddentext.Check(text) {
		if f.Rune == '\r' && crlfAt(text, f.Pos) {
			continue
		}
		f.Field = "text"
		out = append(out, f)
	}
	return out
}

// crlfAt reports whether the character at pos (counted in characters) is
// followed by a newline.
func crlfAt(text string, pos int) bool {
	n := 0
	for i := range text {
		if n == pos {
			return i+1 < len(text) && text[i+1] == '\n'
		}
		n++
	}
	return false
}
