package lifecycle

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestFailedReloadKeepsServing: a served plugin's file that can no longer
// be read (here a link loop, which any user can make; under confinement a
// file outside the rules, cmd/mcpwasm's TestFailedReloadKeepsServingConfined)
// is a failed reload, for a file given alone, a file of a folder and a
// [[plugin]] table alike: the version serving keeps serving and the log
// says so, naming the file and the reason. Removing the file withdraws the
// plugin: a file that is gone is not a failure.
func TestFailedReloadKeepsServing(t *testing.T) {
	for _, how := range []string{"file", "folder", "config"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "p.wasm")
			fixture.Copy(t, "echo", p)
			fixture.Copy(t, "constant", filepath.Join(dir, "q.wasm")) // a folder keeps a file
			var h *harness
			switch how {
			case "file":
				h = serveInProcess(t, "", p)
			case "folder":
				h = serveInProcess(t, "", dir)
			case "config":
				cfg := fixture.Config(t, dir, "[[plugin]]\npath = \"p.wasm\"\n")
				h = serveInProcess(t, cfg)
			}
			want := h.tools()
			if !slices.Contains([]string{"p_echo", "p_echo,q_a,q_b"}, want) {
				t.Fatalf("tools at start = %q", want)
			}
			// A link to itself: stat and read fail with "too many levels of
			// symbolic links", not "no such file".
			tmp := filepath.Join(dir, "p.tmp")
			if err := os.Symlink("p.wasm", tmp); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
			h.rescan(p)
			h.wantTools("after a failed reload", want)
			if res, out := h.call("p_echo"); res.IsError {
				t.Fatalf("p_echo after a failed reload: %s", out)
			}
			h.wantLog("plugin not reloaded: the previous version keeps serving", "plugin=p", p, "symbolic links")
			if h.logLine("plugin removed") != "" {
				t.Fatalf("a failed reload withdrew a plugin:\n%s", h.logs)
			}
			// Removed: withdrawn.
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			h.rescan(p)
			if got := h.tools(); got == want {
				t.Fatalf("after the file was removed, tools = %q\nlog:\n%s", got, h.logs)
			}
			h.wantLog("plugin removed", p)
		})
	}
}

// TestWatchFollowsLinkSwap: a file of interest reached through a link that
// is renamed over (a Kubernetes ConfigMap's ..data) changes without an
// event of its own: an event in its folder marks it when, and only when,
// it now resolves to another file.
func TestWatchFollowsLinkSwap(t *testing.T) {
	data, cfg := configMap(t)
	in := interests{files: map[string]bool{cfg: true}, targets: map[string]string{cfg: resolve(cfg)}}
	if got := in.relinked(data); len(got) != 0 {
		t.Fatalf("nothing changed, yet relinked = %v", got)
	}
	swapData(t, data, "..v2")
	if got := in.relinked(data); !slices.Equal(got, []string{cfg}) {
		t.Fatalf("after the ..data swap, relinked = %v, want [%s]", got, cfg)
	}
	if got := in.relinked(data); len(got) != 0 {
		t.Fatalf("the same swap reported twice: %v", got)
	}
}

// TestWatchKeepsTargetsAcrossReload: a ConfigMap swapped while a reload
// runs (after the reload read the config, before it looked at the files
// again) is still a change when its queued event is taken. refollow used
// to resolve every file afresh, adopting the new target unseen, and the
// swap was lost (cmd/mcpwasm's TestAtomicReplaceUnderConfinement waited a
// minute for the second version, under isolation in CI).
func TestWatchKeepsTargetsAcrossReload(t *testing.T) {
	data, cfg := configMap(t)
	r := &reloader{cfgPath: cfg, cfg: &config.Config{}}
	before := r.refollow(nil, interests{})
	swapData(t, data, "..v2")
	after := r.refollow(nil, before) // the reload's end, the swap's event still queued
	if got := after.relinked(data); !slices.Equal(got, []string{cfg}) {
		t.Fatalf("the swap's event after the reload: relinked = %v, want [%s]", got, cfg)
	}
}

// configMap lays out a folder as Kubernetes mounts a ConfigMap:
// mcpwasm.toml -> ..data/mcpwasm.toml, ..data -> ..v1, and a second
// version in ..v2 (swapData). It returns the ..data link and the config.
func configMap(t *testing.T) (data, cfg string) {
	t.Helper()
	dir := t.TempDir()
	for _, v := range []string{"..v1", "..v2"} {
		if err := os.Mkdir(filepath.Join(dir, v), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, v, "mcpwasm.toml"), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, cfg = filepath.Join(dir, "..data"), filepath.Join(dir, "mcpwasm.toml")
	if err := os.Symlink("..v1", data); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..data/mcpwasm.toml", cfg); err != nil {
		t.Fatal(err)
	}
	return data, cfg
}

// swapData points the ..data link at version v as Kubernetes does: a new
// link renamed over the old.
func swapData(t *testing.T, data, v string) {
	t.Helper()
	tmp := data + "_tmp"
	if err := os.Symlink(v, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, data); err != nil {
		t.Fatal(err)
	}
}
