package registry

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConfusableAcrossPlugins: a tool whose exposed name looks like
// another plugin's (TR39 skeleton: "fi1es_echo" and "files_echo") is a
// collision the better rank wins, whatever the order the plugins arrive
// in; AllowConfusable (hidden_text = "warn") serves both.
func TestConfusableAcrossPlugins(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		reg := New()
		ps := []*struct {
			name string
			rank int
		}{{"files", 0}, {"fi1es", 1}}
		for _, i := range order {
			p := loadFixture(t, rt, "echo", ps[i].name)
			if _, err := reg.AddRanked(ctx, p, AddOptions{}, ps[i].rank); err != nil {
				t.Fatal(err)
			}
		}
		refused := reg.Settle()
		if len(refused) != 1 || refused[0].Plugin.Name() != "fi1es" || !strings.Contains(refused[0].Err.Error(), `looks like tool "files_echo" from plugin "files"`) {
			t.Fatalf("order %v: refused %v", order, refused)
		}
		if _, ok := reg.Lookup("files_echo"); !ok {
			t.Fatal("files_echo not served")
		}
	}
	reg := New()
	reg.AddRanked(ctx, loadFixture(t, rt, "echo", "files"), AddOptions{}, 0)
	reg.AddRanked(ctx, loadFixture(t, rt, "echo", "fi1es"), AddOptions{AllowConfusable: true}, 1)
	if refused := reg.Settle(); len(refused) != 0 {
		t.Fatalf("AllowConfusable: refused %v", refused)
	}
	reg = New()
	reg.AddRanked(ctx, loadFixture(t, rt, "echo", "files"), AddOptions{}, 0)
	reg.AddRanked(ctx, loadFixture(t, rt, "echo", "other"), AddOptions{}, 1)
	if refused := reg.Settle(); len(refused) != 0 {
		t.Fatalf("distinct names refused: %v", refused)
	}
}

// TestConfusablePromptsAndOwnNames: prompts are compared as tools are, a
// plugin's own names never refuse each other, and equal names are a plain
// collision, not a lookalike.
func TestConfusablePromptsAndOwnNames(t *testing.T) {
	a, b := &plugin.Plugin{}, &plugin.Plugin{}
	r := New()
	r.prompts["files_p"] = &Prompt{Def: &mcp.Prompt{Name: "files_p"}, Plugin: a}
	r.tools["files_t"] = &Tool{Def: &mcp.Tool{Name: "files_t"}, Plugin: a}
	err := r.confusable(&Entry{Plugin: b, Prompts: []*Prompt{{Def: &mcp.Prompt{Name: "fi1es_p"}, Plugin: b}}})
	if err == nil || !strings.Contains(err.Error(), `prompt "fi1es_p" looks like prompt "files_p"`) {
		t.Fatalf("a lookalike prompt from another plugin: %v", err)
	}
	for what, e := range map[string]*Entry{
		"the same plugin": {Plugin: a, Prompts: []*Prompt{{Def: &mcp.Prompt{Name: "fi1es_p"}, Plugin: a}},
			Tools: []*Tool{{Def: &mcp.Tool{Name: "fi1es_t"}, Plugin: a}}},
		"the same name": {Plugin: b, Prompts: []*Prompt{{Def: &mcp.Prompt{Name: "files_p"}, Plugin: b}}},
		"a tool's look": {Plugin: b, Prompts: []*Prompt{{Def: &mcp.Prompt{Name: "fi1es_t"}, Plugin: b}}},
	} {
		if err := r.confusable(e); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
}
