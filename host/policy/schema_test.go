package policy

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestGeneratedSchemaArguments(t *testing.T) {
	g := GenerateSchema([]ToolArgs{
		{Name: "a", InputSchema: json.RawMessage(`{"type":"object","properties":{
			"path":{"type":"string"},"n":{"type":"integer"},"f":{"type":"number"},"tags":{"type":"array","items":{"type":"string"}},
			"opt":{"type":"object","properties":{"deep":{"type":"boolean"}}},"both":{"type":"string"},"odd name\n":{"type":"string"}}}`)},
		{Name: "b", InputSchema: json.RawMessage(`{"type":"object","properties":{"both":{"type":"integer"},"path":{"type":"string"}}}`)},
		{Name: "p", StringArgs: []string{"topic"}},
	})
	if !slices.Equal(g.Untyped, []string{"both", "f", "odd name\n"}) {
		t.Fatalf("untyped: %q", g.Untyped)
	}
	for _, want := range []string{`"path"?: String`, `"n"?: Long`, `"tags"?: Set<String>`, `"opt"?: {"deep"?: Bool}`, `"topic"?: String`} {
		if !strings.Contains(g.Text, want) {
			t.Errorf("schema lacks %s:\n%s", want, g.Text)
		}
	}
	sc, err := g.Schema()
	if err != nil {
		t.Fatal(err)
	}
	check := func(policy string) error {
		return sc.Check(mustParse(t, policy))
	}
	for _, ok := range []string{
		`permit(principal, action == Action::"call_tool", resource) when { context.arguments has path && context.arguments.path like "/srv/*" };`,
		`permit(principal, action, resource) when { context.arguments has n && context.arguments.n > 3 };`,
		`permit(principal in Group::"g", action == Action::"complete", resource in Plugin::"x") when { principal.hasTag("dept") && principal.getTag("dept") == "x" };`,
		`permit(principal, action == Action::"call_tool", resource) when { resource.annotations.destructiveHint && context.time.toTime() < duration("9h") };`,
	} {
		if err := check(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{
		`permit(principal, action, resource) when { context.arguments.path like "/srv/*" };`, // optional: needs has
		`permit(principal, action, resource) when { context.arguments.f == "1.5" };`,
		`permit(principal, action == Action::"call_tool", resource == Prompt::"x");`,
		`permit(principal, action == Action::"call_tol", resource);`,
		`permit(principal, action, resource) when { principal.role == "x" };`,
	} {
		if err := check(bad); err == nil || !strings.Contains(err.Error(), "p.cedar:1") {
			t.Errorf("%s: want an error naming p.cedar:1, got %v", bad, err)
		}
	}
}

func TestSchemaFileJSON(t *testing.T) {
	if _, err := ParseSchema("s.json", []byte(`{"": {"entityTypes": {"User": {}}, "actions": {}}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseSchema("s.json", []byte(`{`)); err == nil || !strings.Contains(err.Error(), "s.json") {
		t.Fatalf("%v", err)
	}
}
