package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// replaceByRename puts fixture name at path the way a deploy does: a new
// file written beside it, then renamed over it (a new inode).
func replaceByRename(t *testing.T, name, path string) {
	t.Helper()
	tmp := path + ".tmp"
	fixture.Copy(t, name, tmp)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestAtomicReplaceUnderConfinement: under --confine=auto and required, a
// plugin given as a single file, a plugin folder's file, the config file
// and a ConfigMap-style `..data` symlink swap can each be replaced by
// rename, and the new version serves. Before, the Landlock rule of a file
// given on its own followed the old inode: the new file was unreadable,
// the plugin was withdrawn (tools/list []) and never came back.
func TestAtomicReplaceUnderConfinement(t *testing.T) {
	for _, mode := range []string{"auto", "required"} {
		t.Run(mode, func(t *testing.T) {
			t.Run("single file", func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, "p.wasm")
				fixture.Copy(t, "echo", p)
				rs := startReload(t, nil, nil, "--confine", mode, "--trust", "off", p) // the swap declares other tools (trust would hold them)
				rs.waitLog("process confined")
				rs.waitTools("p_echo")
				replaceByRename(t, "constant", p)
				rs.waitTools("p_a,p_b")
				rs.waitLog("plugin reloaded", "p.wasm")
				// A later overwrite in place is picked up too.
				fixture.Copy(t, "echo", p)
				rs.waitTools("p_echo")
				if strings.Contains(rs.stderr.String(), "restart needed") {
					t.Fatalf("a replaced file asked for a restart:\n%s", rs.stderr)
				}
			})
			t.Run("folder", func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, "p.wasm")
				fixture.Copy(t, "echo", p)
				rs := startReload(t, nil, nil, "--confine", mode, "--trust", "off", dir)
				rs.waitLog("process confined")
				rs.waitTools("p_echo")
				replaceByRename(t, "constant", p)
				rs.waitTools("p_a,p_b")
			})
			t.Run("config file", func(t *testing.T) {
				dir := fixture.Folder(t, "echo")
				cfg := fixture.Config(t, dir, "[[plugin]]\nname = \"one\"\npath = \"echo.wasm\"\n")
				rs := startReload(t, nil, nil, "--confine", mode, "--config", cfg)
				rs.waitLog("process confined")
				rs.waitTools("one_echo")
				tmp := cfg + ".tmp"
				if err := os.WriteFile(tmp, []byte("[[plugin]]\nname = \"two\"\npath = \"echo.wasm\"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, cfg); err != nil {
					t.Fatal(err)
				}
				rs.waitTools("two_echo")
				rs.waitLog("config reloaded")
			})
			t.Run("configmap", func(t *testing.T) {
				// Kubernetes mounts a ConfigMap as NAME -> ..data/NAME,
				// ..data -> ..<timestamp>/, and updates it by writing a new
				// ..<timestamp>/ and renaming a new ..data link over the old.
				dir := t.TempDir()
				swap := func(stamp, config, plugin string) {
					t.Helper()
					v := filepath.Join(dir, ".."+stamp)
					if err := os.Mkdir(v, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(v, "mcpwasm.toml"), []byte(config), 0o644); err != nil {
						t.Fatal(err)
					}
					fixture.Copy(t, plugin, filepath.Join(v, "p.wasm"))
					tmp := filepath.Join(dir, "..data_tmp")
					if err := os.Symlink(".."+stamp, tmp); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
						t.Fatal(err)
					}
				}
				swap("2026_01", "[[plugin]]\nname = \"one\"\npath = \"p.wasm\"\n", "echo")
				for _, n := range []string{"mcpwasm.toml", "p.wasm"} {
					if err := os.Symlink(filepath.Join("..data", n), filepath.Join(dir, n)); err != nil {
						t.Fatal(err)
					}
				}
				cfg := filepath.Join(dir, "mcpwasm.toml")
				rs := startReload(t, nil, nil, "--confine", mode, "--trust", "off", "--config", cfg) // the swap declares other tools
				rs.waitLog("process confined")
				rs.waitTools("one_echo")
				// A new version of the plugin alone, then of the config.
				swap("2026_02", "[[plugin]]\nname = \"one\"\npath = \"p.wasm\"\n", "constant")
				os.RemoveAll(filepath.Join(dir, "..2026_01"))
				rs.waitTools("one_a,one_b")
				swap("2026_03", "[[plugin]]\nname = \"two\"\npath = \"p.wasm\"\n", "constant")
				os.RemoveAll(filepath.Join(dir, "..2026_02"))
				rs.waitTools("two_a,two_b")
			})
		})
	}
}

// TestFailedReloadKeepsServingConfined: a plugin file replaced by one the
// confinement does not let the server read (a link to a file outside its
// rules) is a failed reload: the version serving keeps serving, and the
// log names the file and the reason. Before, the plugin was withdrawn.
// Removing the file withdraws it (that is not a failure).
func TestFailedReloadKeepsServingConfined(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, "p.wasm")
	fixture.Copy(t, "echo", p)
	far := filepath.Join(outside, "far.wasm")
	fixture.Copy(t, "constant", far)
	rs := startReload(t, nil, nil, "--confine", "required", dir)
	rs.waitLog("process confined")
	rs.waitTools("p_echo")
	tmp := filepath.Join(dir, "p.tmp")
	if err := os.Symlink(far, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	rs.waitLog("plugin not reloaded: the previous version keeps serving", p, "permission denied")
	if got := rs.tools(); got != "p_echo" {
		t.Fatalf("after a failed reload, tools = %q, want p_echo\nstderr:\n%s", got, rs.stderr)
	}
	if res, out := rs.call("p_echo"); res.IsError {
		t.Fatalf("p_echo after a failed reload: %s", out)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	fixture.Copy(t, "constant", filepath.Join(dir, "q.wasm")) // the folder keeps a file
	rs.waitTools("q_a,q_b")
	rs.waitLog("plugin removed", p)
}
