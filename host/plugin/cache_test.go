//go:build unix

package plugin_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// The load cache (loadcache.go): a warm start neither rewrites nor runs a
// guest, and nothing stale is ever served.

// cachedRuntime is a runtime caching in dir, as one start of the server.
func cachedRuntime(t *testing.T, dir string) *plugin.Runtime {
	t.Helper()
	return runtimeWith(t, plugin.RuntimeOptions{CacheDir: dir})
}

// loadAndList loads data as plugin name and reads its tool list as the
// registry does at load, then keeps the declarations.
func loadAndList(t *testing.T, rt *plugin.Runtime, name string, data []byte, cfg plugin.Config) (*plugin.Plugin, string) {
	t.Helper()
	cfg.Name, cfg.Source, cfg.Wasm = name, name+".wasm", data
	p, err := rt.Load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	out, cerr := p.List(context.Background(), abi.ExportListTools, []byte(`{"request":{},"context":{}}`))
	if cerr != nil {
		t.Fatal(cerr)
	}
	p.KeepDeclarations()
	return p, string(out)
}

// coldStart is a first start as serve makes it: load, list, keep the
// declarations, then compile (CompileIfCold, here waited for), which adds
// the interruption points and writes the prepared module to the cache
// (a cold load lists the module without them: listguard.go).
func coldStart(t *testing.T, rt *plugin.Runtime, name string, data []byte, cfg plugin.Config) (*plugin.Plugin, string) {
	t.Helper()
	p, out := loadAndList(t, rt, name, data, cfg)
	if err := p.Compile(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p, out
}

func wantStats(t *testing.T, what string, got, want plugin.LoadStats) {
	t.Helper()
	if got != want {
		t.Errorf("%s: load stats %+v, want %+v", what, got, want)
	}
}

// A second start over the same cache lists the plugin from the cache: no
// rewrite, no compilation, no guest. Its first call compiles the prepared
// module from the cache, still without a rewrite.
func TestWarmStartRunsNoGuest(t *testing.T) {
	dir := t.TempDir()
	echo := fixture.Bytes(t, "echo")
	rt1 := cachedRuntime(t, dir)
	_, cold := coldStart(t, rt1, "echo", echo, plugin.Config{})
	wantStats(t, "cold start", rt1.LoadStats(), plugin.LoadStats{Rewrites: 1, Compiles: 1, Listers: 1, ListInstances: 1})

	rt2 := cachedRuntime(t, dir)
	p, warm := loadAndList(t, rt2, "echo", echo, plugin.Config{})
	wantStats(t, "warm start", rt2.LoadStats(), plugin.LoadStats{DeclarationHits: 1})
	if warm != cold || !strings.Contains(warm, `"echo"`) {
		t.Fatalf("warm list %s, cold list %s", warm, cold)
	}
	out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{"request":{"name":"echo","arguments":{}},"context":{}}`))
	if cerr != nil || !strings.Contains(string(out), "structuredContent") {
		t.Fatalf("first call after a warm start: %s, %v", out, cerr)
	}
	wantStats(t, "first call", rt2.LoadStats(), plugin.LoadStats{DeclarationHits: 1, PreparedHits: 1, Compiles: 1})
}

// A plugin whose file changed is listed from the new file, not the cache.
func TestLoadCacheChangedFile(t *testing.T) {
	dir := t.TempDir()
	coldStart(t, cachedRuntime(t, dir), "tool", fixture.Bytes(t, "echo"), plugin.Config{})
	rt := cachedRuntime(t, dir)
	_, got := loadAndList(t, rt, "tool", fixture.Bytes(t, "typed"), plugin.Config{})
	_, want := loadAndList(t, cachedRuntime(t, "off"), "tool", fixture.Bytes(t, "typed"), plugin.Config{})
	if got != want {
		t.Fatalf("after the file changed, listed %s; the file lists %s", got, want)
	}
	wantStats(t, "changed file", rt.LoadStats(), plugin.LoadStats{Listers: 1, ListInstances: 1})
}

// A new rewriter version prepares and lists the module again.
func TestLoadCacheNewRewriterVersion(t *testing.T) {
	dir := t.TempDir()
	echo := fixture.Bytes(t, "echo")
	coldStart(t, cachedRuntime(t, dir), "echo", echo, plugin.Config{})
	defer plugin.SetRewriterVersion("next")()
	rt := cachedRuntime(t, dir)
	coldStart(t, rt, "echo", echo, plugin.Config{})
	wantStats(t, "new rewriter", rt.LoadStats(), plugin.LoadStats{Rewrites: 1, Compiles: 1, Listers: 1, ListInstances: 1})
}

// A changed configuration lists the plugin again (its lists may depend on
// it), from the cached prepared module; an unchanged one does not.
func TestLoadCacheChangedConfig(t *testing.T) {
	dir := t.TempDir()
	echo := fixture.Bytes(t, "echo")
	coldStart(t, cachedRuntime(t, dir), "echo", echo, plugin.Config{GuestConfig: map[string]string{"mode": "a"}})
	for _, c := range []struct {
		name string
		cfg  plugin.Config
	}{
		{"guest config", plugin.Config{GuestConfig: map[string]string{"mode": "b"}}},
		{"output limit", plugin.Config{GuestConfig: map[string]string{"mode": "a"}, MaxOutput: 100_000}},
		{"granted folder", plugin.Config{GuestConfig: map[string]string{"mode": "a"}, Grants: []plugin.Grant{{Path: canonicalTemp(t), ReadOnly: true}}}},
	} {
		rt := cachedRuntime(t, dir)
		loadAndList(t, rt, "echo", echo, c.cfg)
		wantStats(t, c.name, rt.LoadStats(), plugin.LoadStats{PreparedHits: 1, Listers: 1, ListInstances: 1})
	}
	rt := cachedRuntime(t, dir)
	loadAndList(t, rt, "echo", echo, plugin.Config{GuestConfig: map[string]string{"mode": "a"}})
	wantStats(t, "same config", rt.LoadStats(), plugin.LoadStats{DeclarationHits: 1})
}

func canonicalTemp(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A damaged entry (a flipped byte, a cut, another file's body) is a miss:
// the plugin is rewritten or listed again, the entry replaced.
func TestLoadCacheCorruptEntry(t *testing.T) {
	echo := fixture.Bytes(t, "echo")
	damages := map[string]func([]byte) []byte{
		"flipped byte": func(b []byte) []byte { b[len(b)-1] ^= 1; return b },
		"truncated":    func(b []byte) []byte { return b[:len(b)/2] },
		"empty":        func([]byte) []byte { return nil },
		// A change no decoder notices: the list, or the module's data.
		"altered text": func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("echo"), []byte("ecHo")) },
	}
	for name, damage := range damages {
		for _, kind := range []string{"decl", "prep"} {
			t.Run(name+" "+kind, func(t *testing.T) {
				dir := t.TempDir()
				_, cold := coldStart(t, cachedRuntime(t, dir), "echo", echo, plugin.Config{})
				files, _ := filepath.Glob(filepath.Join(dir, "load", kind+"-*"))
				if len(files) != 1 {
					t.Fatalf("%d %s entries, want 1", len(files), kind)
				}
				data, _ := os.ReadFile(files[0])
				damaged := damage(append([]byte(nil), data...))
				if err := os.WriteFile(files[0], damaged, 0o600); err != nil {
					t.Fatal(err)
				}
				rt := cachedRuntime(t, dir)
				p, got := loadAndList(t, rt, "echo", echo, plugin.Config{})
				if got != cold {
					t.Fatalf("listed %s, want %s", got, cold)
				}
				want := plugin.LoadStats{PreparedHits: 1, Listers: 1, ListInstances: 1} // the declarations read again
				if kind == "prep" {
					out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{"request":{"name":"echo","arguments":{}},"context":{}}`))
					if cerr != nil || !strings.Contains(string(out), `"text":"echo"`) {
						t.Fatalf("call: %s, %v", out, cerr)
					}
					want = plugin.LoadStats{DeclarationHits: 1, Rewrites: 1, Compiles: 1} // the module prepared again
				}
				wantStats(t, "damaged "+kind, rt.LoadStats(), want)
				fixed, _ := os.ReadFile(files[0])
				if bytes.Equal(fixed, damaged) {
					t.Fatal("the damaged entry was not replaced")
				}
			})
		}
	}
}

// Entries someone else could have written are not read: a symlink in
// place of an entry, or a load folder others may write to (then the whole
// cache folder is refused, as for compiled code).
func TestLoadCacheRefusesForeignEntries(t *testing.T) {
	echo := fixture.Bytes(t, "echo")
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		loadAndList(t, cachedRuntime(t, dir), "echo", echo, plugin.Config{})
		files, _ := filepath.Glob(filepath.Join(dir, "load", "decl-*"))
		if len(files) != 1 {
			t.Fatalf("%d decl entries", len(files))
		}
		rt := cachedRuntime(t, dir) // the folder's check at start passes; the entry is checked when read
		elsewhere := filepath.Join(t.TempDir(), "entry")
		if err := os.Rename(files[0], elsewhere); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, files[0]); err != nil {
			t.Fatal(err)
		}
		loadAndList(t, rt, "echo", echo, plugin.Config{})
		if st := rt.LoadStats(); st.DeclarationHits != 0 {
			t.Fatalf("declarations read through a symlink: %+v", st)
		}
	})
	t.Run("writable folder", func(t *testing.T) {
		dir := t.TempDir()
		loadAndList(t, cachedRuntime(t, dir), "echo", echo, plugin.Config{})
		if err := os.Chmod(filepath.Join(dir, "load"), 0o777); err != nil {
			t.Fatal(err)
		}
		var logs syncBuffer
		rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close(context.Background())
		loadAndList(t, rt, "echo", echo, plugin.Config{})
		if st := rt.LoadStats(); st.DeclarationHits+st.PreparedHits != 0 || !strings.Contains(logs.String(), "writable by group or others") {
			t.Fatalf("a load folder others may write to was used: %+v; logs: %s", st, logs.String())
		}
	})
}

// Declarations the caller did not accept (KeepDeclarations not called: a
// malformed list, a refusal) are not cached.
func TestLoadCacheKeepsOnlyAccepted(t *testing.T) {
	dir := t.TempDir()
	echo := fixture.Bytes(t, "echo")
	p, err := cachedRuntime(t, dir).Load(context.Background(), plugin.Config{Name: "echo", Wasm: echo})
	if err != nil {
		t.Fatal(err)
	}
	if _, cerr := p.List(context.Background(), abi.ExportListTools, []byte(`{}`)); cerr != nil {
		t.Fatal(cerr)
	}
	p.Close(context.Background())
	rt := cachedRuntime(t, dir)
	loadAndList(t, rt, "echo", echo, plugin.Config{})
	if st := rt.LoadStats(); st.DeclarationHits != 0 {
		t.Fatalf("declarations never accepted were served from the cache: %+v", st)
	}
}

// Calls arriving together at a plugin loaded from the cache share one
// compilation, and each is answered.
func TestFirstCallsShareOneCompile(t *testing.T) {
	dir := t.TempDir()
	echo := fixture.Bytes(t, "echo")
	loadAndList(t, cachedRuntime(t, dir), "echo", echo, plugin.Config{})
	rt := cachedRuntime(t, dir)
	p, _ := loadAndList(t, rt, "echo", echo, plugin.Config{Concurrency: 16})
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{"request":{"name":"echo","arguments":{}},"context":{}}`))
			if cerr != nil {
				errs <- cerr
				return
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if st := rt.LoadStats(); st.Compiles != 1 {
		t.Fatalf("8 first calls compiled %d times", st.Compiles)
	}
}

// Closing a plugin while its background compilation runs waits for it
// (under -race: no race with the build's goroutine).
func TestCloseDuringBackgroundCompile(t *testing.T) {
	rt := cachedRuntime(t, t.TempDir())
	p, err := rt.Load(context.Background(), plugin.Config{Name: "echo", Wasm: fixture.Bytes(t, "echo")})
	if err != nil {
		t.Fatal(err)
	}
	if _, cerr := p.List(context.Background(), abi.ExportListTools, []byte(`{}`)); cerr != nil {
		t.Fatal(cerr)
	}
	p.KeepDeclarations()
	p.CompileIfCold()
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := rt.LoadStats(); st.Compiles != 1 {
		t.Fatalf("compiles %d after CompileIfCold", st.Compiles)
	}
}

// A list that runs out of time in the interpreter is run again as machine
// code before the load gives up (slow_list sleeps 10 s: it fails both
// ways, and the test sees the second attempt).
func TestListerTimeoutRetriesCompiled(t *testing.T) {
	rt := cachedRuntime(t, "off")
	p, err := rt.Load(context.Background(), plugin.Config{Name: "slow_list", Wasm: fixture.Bytes(t, "slow_list"), Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	_, cerr := p.List(context.Background(), abi.ExportListTools, []byte(`{}`))
	if cerr == nil || cerr.Category != abi.ErrTimeout {
		t.Fatalf("got %v, want a timeout", cerr)
	}
	if st := rt.LoadStats(); st.Listers != 1 || st.Compiles != 1 {
		t.Fatalf("load stats %+v: want the list tried by the interpreter, then compiled", st)
	}
}

// syncBuffer is a log or stderr sink safe for concurrent writes.
type syncBuffer = fixture.Buffer

// cacheRuntime loads the echo fixture in a runtime caching in dir, and
// returns what the runtime logged.
func cacheRuntime(t *testing.T, dir string) string {
	t.Helper()
	var logs syncBuffer
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	loadIn(t, rt, "echo", plugin.Config{})
	return logs.String()
}

// With no user cache folder there is no cache on disk: no fallback to the
// system's temporary folder, where anyone can create the folder first.
func TestDefaultCacheDirHasNoTempFallback(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if d := plugin.DefaultCacheDir(); d != "" {
		t.Fatalf("DefaultCacheDir() = %q with no user cache folder; want none", d)
	}
}

// A missing cache folder is created for the current user alone.
func TestCacheDirCreatedPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if logs := cacheRuntime(t, dir); strings.Contains(logs, "WARN") {
		t.Fatalf("unexpected warning: %s", logs)
	}
	for _, d := range []string{filepath.Dir(dir), dir} {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v, mode %v; want 0700", d, err, st.Mode().Perm())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) == 0 {
		t.Fatal("nothing cached in a private folder")
	}
}

// A cache folder others could have written to is refused: wazero would run
// whatever native code it finds there. The process compiles in memory and
// writes nothing into the folder.
func TestCacheDirRefusedWhenOthersCouldWrite(t *testing.T) {
	cases := map[string]func(t *testing.T) string{
		"world-writable": func(t *testing.T) string {
			d := t.TempDir()
			if err := os.Chmod(d, 0o777); err != nil {
				t.Fatal(err)
			}
			return d
		},
		"symlink to a group-writable folder": func(t *testing.T) string {
			d := t.TempDir()
			target := filepath.Join(d, "target")
			if err := os.Mkdir(target, 0o770); err != nil || os.Chmod(target, 0o770) != nil {
				t.Fatal(err)
			}
			link := filepath.Join(d, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link
		},
		"planted version folder": func(t *testing.T) string {
			d := t.TempDir()
			if err := os.Chmod(d, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(d, "wazero-planted"), 0o777); err != nil || os.Chmod(filepath.Join(d, "wazero-planted"), 0o777) != nil {
				t.Fatal(err)
			}
			return d
		},
		"owned by another user": func(t *testing.T) string {
			if os.Getuid() != 0 {
				t.Skip("needs root to give a folder away")
			}
			d := t.TempDir()
			if err := os.Chown(d, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return d
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			dir := mk(t)
			before, _ := os.ReadDir(dir)
			logs := cacheRuntime(t, dir)
			if !strings.Contains(logs, "refusing the compilation cache folder") {
				t.Errorf("no refusal logged: %s", logs)
			}
			if after, _ := os.ReadDir(dir); len(after) != len(before) {
				t.Errorf("the runtime wrote into a refused cache folder: %d entries, %d before", len(after), len(before))
			}
		})
	}
}
