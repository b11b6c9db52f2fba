package server_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// allPages lists every page of the four lists and returns the names (URIs
// for resources, URI templates for templates), one string per list, and
// how many pages tools/list took.
func allPages(t *testing.T, cs *mcp.ClientSession) (map[string][]string, int) {
	t.Helper()
	ctx := context.Background()
	out := map[string][]string{}
	pages := 0
	for cursor := ""; ; pages++ {
		r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range r.Tools {
			out["tools"] = append(out["tools"], x.Name)
		}
		if cursor = r.NextCursor; cursor == "" {
			break
		}
	}
	// The other three through go-sdk's iterators, which follow the cursors.
	for x, err := range cs.Prompts(ctx, &mcp.ListPromptsParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		out["prompts"] = append(out["prompts"], x.Name)
	}
	for x, err := range cs.Resources(ctx, &mcp.ListResourcesParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		out["resources"] = append(out["resources"], x.URI)
	}
	for x, err := range cs.ResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		out["templates"] = append(out["templates"], x.URITemplate)
	}
	return out, pages
}

// tools/list, prompts/list, resources/list and resources/templates/list
// come in one order, whatever order the plugins loaded in and however
// often they are asked, page after page: sorted by name (tools, prompts),
// URI (resources) or URI template, byte-wise. go-sdk keeps them that way
// (its feature sets are sorted by key, and cursors are the last key
// served), so a plugin a hot reload replaces takes its place again.
func TestListOrderDeterministic(t *testing.T) {
	specs := []loadSpec{{name: "conformance"}, {name: "echo"}, {name: "constant"}, {name: "typed"}, {name: "templates_only"}}
	var first map[string][]string
	var srv0 *server.Server
	var reg0 *registry.Registry
	for i, order := range [][]loadSpec{specs, {specs[4], specs[3], specs[2], specs[1], specs[0]}, {specs[2], specs[0], specs[4], specs[1], specs[3]}} {
		srv, reg := newServerWith(t, true, server.Options{Name: "test", PageSize: 4}, plugin.RuntimeOptions{}, order...)
		if srv0 == nil {
			srv0, reg0 = srv, reg
		}
		for _, version := range []string{"2026-07-28", "2025-11-25"} {
			cs := connectVersion(t, srv, nil, version)
			for range 2 {
				got, pages := allPages(t, cs)
				if pages < 3 {
					t.Fatalf("tools/list took %d pages; the test needs several", pages+1)
				}
				for list, names := range got {
					if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
						t.Errorf("order %d, %s, %s: not sorted or repeated: %s", i, version, list, strings.Join(names, " "))
					}
				}
				if first == nil {
					first = got
					continue
				}
				for list := range first {
					if !slices.Equal(got[list], first[list]) {
						t.Errorf("order %d, %s, %s:\n%s\nwant\n%s", i, version, list, strings.Join(got[list], " "), strings.Join(first[list], " "))
					}
				}
			}
		}
	}
	// A hot reload replaces the conformance plugin, whose names sort among
	// the others': they take their places again.
	ctx := context.Background()
	next := servertest.Plugin(t, servertest.Runtime(t), "conformance", plugin.Config{})
	old, ok := reg0.Lookup("conformance_test_simple_text")
	if !ok {
		t.Fatal("conformance_test_simple_text not served")
	}
	e, err := registry.Read(ctx, next, registry.AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := reg0.Replace(old.Plugin, e, registry.AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if refused := srv0.Publish(ch); len(refused) > 0 {
		t.Fatal(refused[0].Err)
	}
	<-srv0.Retire(old.Plugin)
	got, _ := allPages(t, connectVersion(t, srv0, nil, "2026-07-28"))
	for list := range first {
		if !slices.Equal(got[list], first[list]) {
			t.Errorf("after a reload, %s:\n%s\nwant\n%s", list, strings.Join(got[list], " "), strings.Join(first[list], " "))
		}
	}
	if len(first["tools"]) < 10 || len(first["prompts"]) == 0 || len(first["resources"]) == 0 || len(first["templates"]) < 2 {
		t.Fatalf("lists too small to tell: %v", first)
	}
}
