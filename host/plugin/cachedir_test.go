//go:build unix

package plugin_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

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
