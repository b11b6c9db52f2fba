package plugin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// A granted folder is opened once, when it is checked, and mounted through
// that handle: a folder swapped in at the same path afterwards (renamed in,
// or a symlink) is never mounted. The old code checked the path and then
// opened it again for every call, so a rename mounted another folder.
func TestSwappedGrantIsNotMounted(t *testing.T) {
	rt := warmRuntime(t, plugin.RuntimeOptions{})
	swaps := map[string]func(t *testing.T, grant, other string){
		"folder renamed in": func(t *testing.T, grant, other string) {
			must(t, os.Rename(grant, grant+".old"))
			must(t, os.Rename(other, grant))
		},
		"symlink swapped in": func(t *testing.T, grant, other string) {
			must(t, os.Rename(grant, grant+".old"))
			must(t, os.Symlink(other, grant))
		},
	}
	for name, swap := range swaps {
		for _, opened := range []string{"OpenGrant", "opened at load"} {
			t.Run(name+", "+opened, func(t *testing.T) {
				base, err := plugin.Canonical(t.TempDir())
				must(t, err)
				grant, other := filepath.Join(base, "granted"), filepath.Join(base, "other")
				must(t, os.Mkdir(grant, 0o755))
				must(t, os.Mkdir(other, 0o755))
				must(t, os.WriteFile(filepath.Join(grant, "a.txt"), []byte("from-the-granted-folder"), 0o644))
				must(t, os.WriteFile(filepath.Join(other, "a.txt"), []byte("from-another-folder"), 0o644))

				g := plugin.Grant{Path: grant, ReadOnly: true}
				if opened == "OpenGrant" {
					g, err = plugin.OpenGrant(grant, true)
					must(t, err)
				}
				p := loadIn(t, rt, "fsprobe", plugin.Config{Grants: []plugin.Grant{g}})
				swap(t, grant, other)

				in, _ := json.Marshal(map[string]any{"request": map[string]any{"name": "fs",
					"arguments": map[string]any{"ops": [][]string{{"read", filepath.Join(grant, "a.txt")}}}}})
				out, cerr := p.InvokeWith(context.Background(), abi.ExportCallTool, in,
					plugin.CallOptions{Mounts: []abi.Mount{{Path: grant, ReadOnly: true}}})
				if cerr != nil || !strings.Contains(string(out), "from-the-granted-folder") || strings.Contains(string(out), "another") {
					t.Fatalf("want the granted folder's file, got %s, %+v", out, cerr)
				}
			})
		}
	}
}

// A mount outside every grant is refused, whatever the caller asks.
func TestMountOutsideGrantsRefused(t *testing.T) {
	rt := warmRuntime(t, plugin.RuntimeOptions{})
	base, err := plugin.Canonical(t.TempDir())
	must(t, err)
	g, err := plugin.OpenGrant(base, true)
	must(t, err)
	p := loadIn(t, rt, "fsprobe", plugin.Config{Grants: []plugin.Grant{g}})
	for _, m := range []abi.Mount{{Path: filepath.Dir(base), ReadOnly: true}, {Path: base, ReadOnly: false}} {
		_, cerr := p.InvokeWith(context.Background(), abi.ExportCallTool, []byte(`{"request":{"name":"fs","arguments":{"ops":[]}}}`),
			plugin.CallOptions{Mounts: []abi.Mount{m}})
		if cerr == nil || !strings.Contains(cerr.Message, "not inside a folder granted") {
			t.Errorf("mount %+v: %+v", m, cerr)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
