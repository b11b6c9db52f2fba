package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cedar-policy/cedar-go/types"
	xast "github.com/cedar-policy/cedar-go/x/exp/ast"
	"github.com/cedar-policy/cedar-go/x/exp/schema"
	"github.com/cedar-policy/cedar-go/x/exp/schema/validate"
)

// Schema is a resolved Cedar schema that policies are checked against.
type Schema struct {
	name string
	v    *validate.Validator
}

// ParseSchema reads a Cedar schema: JSON when name ends in .json, else
// Cedar's schema text.
func ParseSchema(name string, text []byte) (*Schema, error) {
	var s schema.Schema
	s.SetFilename(name)
	var err error
	if strings.HasSuffix(name, ".json") {
		err = s.UnmarshalJSON(text)
	} else {
		err = s.UnmarshalCedar(text)
	}
	if err != nil {
		return nil, &Error{File: name, Reason: "schema: " + strings.TrimPrefix(err.Error(), name+":")}
	}
	r, err := s.Resolve()
	if err != nil {
		return nil, &Error{File: name, Reason: "schema: " + err.Error()}
	}
	return &Schema{name: name, v: validate.New(r)}, nil
}

// Check validates every policy of a set against the schema (Cedar's strict
// mode): each error names the policy's file and line.
func (sc *Schema) Check(s *Set) error {
	if s == nil {
		return nil
	}
	var errs []error
	for _, id := range s.IDs() {
		p := s.ps.Get(idOf(id))
		pos := p.Position()
		if err := sc.v.Policy(id, (*xast.Policy)(p.AST())); err != nil {
			errs = append(errs, &Error{File: pos.Filename, Line: pos.Line,
				Reason: fmt.Sprintf("policy %q does not match the schema %s: %v", id, sc.name, oneLine(err))})
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// ToolArgs is what the generated schema needs of a tool or prompt: the
// JSON Schema of its arguments (a prompt's arguments are strings).
type ToolArgs struct {
	Name        string
	InputSchema json.RawMessage
	// StringArgs are a prompt's argument names.
	StringArgs []string
}

// Generated is mcpwasm's schema of its entities for a set of tools and
// prompts: context.arguments is the record of every argument any of them
// takes, each optional (a policy tests it with has before using it), typed
// from their JSON Schemas; an argument with no Cedar type (a JSON
// "number", which may arrive as a Long or a String, a union, or two tools
// declaring it with different types) is left out and listed in Untyped.
type Generated struct {
	Text    string
	Untyped []string
}

// GenerateSchema returns the generated schema's text for these tools.
func GenerateSchema(tools []ToolArgs) Generated {
	typed := map[string]string{}
	untyped := map[string]bool{}
	add := func(name, t string) {
		if !plainName(name) {
			untyped[name] = true
			return
		}
		if prev, seen := typed[name]; t == "" || (seen && prev != t) {
			untyped[name] = true
			return
		}
		typed[name] = t
	}
	for _, t := range tools {
		for _, a := range t.StringArgs {
			add(a, "String")
		}
		if len(t.InputSchema) == 0 {
			continue
		}
		var s map[string]any
		d := json.NewDecoder(bytes.NewReader(t.InputSchema))
		if d.Decode(&s) != nil {
			continue
		}
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			ps, _ := v.(map[string]any)
			add(k, argType(ps, 1))
		}
	}
	var g Generated
	for k := range untyped {
		delete(typed, k)
		g.Untyped = append(g.Untyped, k)
	}
	sort.Strings(g.Untyped)
	names := make([]string, 0, len(typed))
	for k := range typed {
		names = append(names, k)
	}
	sort.Strings(names)
	var args strings.Builder
	for _, k := range names {
		fmt.Fprintf(&args, "  %q?: %s,\n", k, typed[k])
	}
	g.Text = strings.Replace(baseSchema, "ARGUMENTS", args.String(), 1)
	return g
}

// Schema parses the generated schema.
func (g Generated) Schema() (*Schema, error) {
	return ParseSchema("(generated schema)", []byte(g.Text))
}

// baseSchema is the entity model (docs/security.md, "Policy"); ARGUMENTS
// is replaced by the arguments' attributes.
const baseSchema = `// mcpwasm's entities (docs/security.md, "Policy").
entity Group;
entity User in [Group] {
  name: String,
  scopes: Set<String>,
  groups: Set<String>,
  issuer: String,
  authentication: String,
  transport: String,
} tags String;
entity Plugin {
  name: String,
  source: String,
  digest: String,
  signature: String,
  trust: String,
};
entity Tool in [Plugin] {
  name: String,
  declared: String,
  plugin: String,
  source: String,
  digest: String,
  signature: String,
  trust: String,
  annotations: {
    readOnlyHint: Bool,
    destructiveHint: Bool,
    idempotentHint: Bool,
    openWorldHint: Bool,
  },
};
entity Prompt in [Plugin] {
  name: String,
  declared: String,
  plugin: String,
  source: String,
  digest: String,
  signature: String,
  trust: String,
};
entity Resource in [Plugin] {
  name: String,
  declared: String,
  template: String,
  plugin: String,
  source: String,
  digest: String,
  signature: String,
  trust: String,
};
type Arguments = {
ARGUMENTS};
type RequestContext = {
  arguments: Arguments,
  time: datetime,
  hour: Long,
  weekday: String,
  protocol: String,
  session: String,
};
action call_tool appliesTo { principal: User, resource: Tool, context: RequestContext };
action read_resource appliesTo { principal: User, resource: Resource, context: RequestContext };
action get_prompt appliesTo { principal: User, resource: Prompt, context: RequestContext };
action complete appliesTo { principal: User, resource: [Prompt, Resource], context: RequestContext };
`

func idOf(id string) types.PolicyID { return types.PolicyID(id) }
