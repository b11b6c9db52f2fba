package server

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// noteChanges counts one change per kind of list an entry touches: the
// resource list for resources, for templates, and once for both.
func TestNoteChangesOncePerList(t *testing.T) {
	res := []*registry.Resource{{Def: &mcp.Resource{URI: "x:a"}}}
	tmpl := []*registry.Template{{Def: &mcp.ResourceTemplate{URITemplate: "x:{a}"}}}
	for _, c := range []struct {
		name string
		e    *registry.Entry
		want [kinds]uint64
	}{
		{"resources only", &registry.Entry{Resources: res}, [kinds]uint64{resourceList: 1}},
		{"templates only", &registry.Entry{Templates: tmpl}, [kinds]uint64{resourceList: 1}},
		{"both", &registry.Entry{Resources: res, Templates: tmpl}, [kinds]uint64{resourceList: 1}},
		{"tools and prompts", &registry.Entry{Tools: []*registry.Tool{{Def: &mcp.Tool{Name: "t"}}},
			Prompts: []*registry.Prompt{{Def: &mcp.Prompt{Name: "p"}}}}, [kinds]uint64{toolList: 1, promptList: 1}},
	} {
		s := New(registry.New(), Options{})
		s.noteChanges(c.e)
		if got := s.lists.Changes(); got != c.want {
			t.Errorf("%s: changes %v, want %v", c.name, got, c.want)
		}
	}
}
