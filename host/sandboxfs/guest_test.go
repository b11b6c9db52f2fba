package sandboxfs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The positive tests run the same ops on sandboxfs and on wazero's own
// DirMount and expect the same results: confinement must not change what a
// well-behaved guest sees.

var rwOps = []string{
	"write|$M|new.txt|hello world",
	"read|$M|new.txt",
	"create|$M|c.txt",
	"create|$M|c.txt",
	"mkdir|$M|d",
	"mkdir|$M|d",
	"rename|$M|new.txt|$M|d/moved.txt",
	"ls|$M|d",
	"read|$M|d/moved.txt",
	"truncate|$M|d/moved.txt|5",
	"read|$M|d/moved.txt",
	"stat|$M|d/moved.txt",
	"rmdir|$M|d",
	"unlink|$M|d/moved.txt",
	"unlink|$M|d",
	"rmdir|$M|d",
	"rmdir|$M|c.txt",
	"read|$M|in-link",
	"readlink|$M|in-link",
	"lstat|$M|in-link",
	"nofollow|$M|in-link",
	"ls|$M|in-dirlink",
	"utimes|$M|c.txt",
	"read|$M|missing.txt",
	"ls|$M|hello.txt",
	"gowrite|$M/g.txt|via go",
	"goread|$M/g.txt",
	"gostat|$M/sub",
	"write|$M|sub/../w.txt|up and back",
	"rename|$M|w.txt|$M|sub/w.txt",
	"unlink|$M|c.txt",
	"gols|$M",
	"ls|$O|.",
	"write|$O|o2.txt|second mount",
}

var rwWant = []string{
	"ok",
	`ok "hello world"`,
	"ok",
	"err EEXIST",
	"ok",
	"err EEXIST",
	"ok",
	"ok moved.txt",
	`ok "hello world"`,
	"ok",
	`ok "hello"`,
	"ok type=4 size=5",
	"err ENOTEMPTY",
	"ok",
	"err EISDIR",
	"ok",
	"err ENOTDIR",
	`ok "hello"`,
	"ok hello.txt",
	"ok type=7 size=9",
	"err ELOOP",
	"ok inner.txt",
	"ok",
	"err ENOENT",
	"err ENOTDIR",
	"ok",
	`ok "via go"`,
	"ok dir=true size=4096",
	"ok",
	"ok",
	"ok",
	"ok abs-link,absdir-link,dir-link,g.txt,hello.txt,in-dirlink,in-link,rel-link,sub",
	"ok o.txt",
	"ok",
}

var roOps = []string{
	"read|$M|hello.txt",
	"read|$M|sub/inner.txt",
	"read|$M|in-link",
	"read|$M|in-dirlink/inner.txt",
	"ls|$M|.",
	"ls|$M|sub",
	"stat|$M|hello.txt",
	"readlink|$M|in-link",
	"nofollow|$M|in-link",
	"goread|$M/hello.txt",
	"gols|$M/sub",
	"read|$M|missing",
	"write|$O|o2.txt|other mount stays writable",
}

var roWant = []string{
	`ok "hello"`,
	`ok "inner"`,
	`ok "hello"`,
	`ok "inner"`,
	"ok abs-link,absdir-link,dir-link,hello.txt,in-dirlink,in-link,rel-link,sub",
	"ok inner.txt",
	"ok type=4 size=5",
	"ok hello.txt",
	"err ELOOP",
	`ok "hello"`,
	"ok inner.txt",
	"err ENOENT",
	"ok",
}

func TestGuestReadWrite(t *testing.T) {
	fx := newFixture(t)
	got, out := runProbe(t, ours.cfg(t, fx, false), fx.expand(rwOps))
	compare(t, "sandboxfs", rwOps, got, fixSizes(t, fx, rwWant))
	for p, want := range map[string]string{"g.txt": "via go", "sub/w.txt": "up and back", "hello.txt": "hello"} {
		if b, err := os.ReadFile(filepath.Join(fx.mnt, p)); err != nil || string(b) != want {
			t.Errorf("host sees %s = %q, %v; want %q", p, b, err, want)
		}
	}
	for _, p := range []string{"c.txt", "d", "new.txt"} {
		if _, err := os.Lstat(filepath.Join(fx.mnt, p)); !os.IsNotExist(err) {
			t.Errorf("%s should be gone: %v", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(fx.other, "o2.txt")); string(b) != "second mount" {
		t.Errorf("other mount: %q", b)
	}
	if strings.Contains(out, fx.marker) {
		t.Error("marker in output")
	}

	nfx := newFixture(t)
	ngot, _ := runProbe(t, naive.cfg(t, nfx, false), nfx.expand(rwOps))
	compare(t, "wazero DirMount", rwOps, ngot, fixSizes(t, nfx, rwWant))
}

func TestGuestReadOnly(t *testing.T) {
	for _, b := range []backend{ours, naive} {
		fx := newFixture(t)
		got, _ := runProbe(t, b.cfg(t, fx, true), fx.expand(roOps))
		compare(t, b.name, roOps, got, roWant)
	}
}

// TestStatRelativeToFolder: a stat relative to a folder descriptor works,
// including one opened on the mount's root, which wazero names "" and so
// hands over paths like "/hello.txt". It is what readdir-then-stat does
// (Rust's DirEntry::metadata, for one).
func TestStatRelativeToFolder(t *testing.T) {
	ops := []string{
		"statat|$M|.|hello.txt",
		"statat|$M|.|sub",
		"statat|$M|sub|inner.txt",
		"statat|$M|.|missing",
		"statat|$M|.|../outside/secret.txt",
		"statat|$M|sub|../../outside/secret.txt",
	}
	want := []string{"ok type=4 size=5", "ok type=3 size=", "ok type=4 size=5", "err ENOENT", "err EPERM", "err EPERM"}
	for _, b := range []backend{ours, naive} {
		fx := newFixture(t)
		got, out := runProbe(t, b.cfg(t, fx, true), fx.expand(ops))
		// A folder's size depends on the filesystem: compare up to "size=".
		for i := range got {
			if strings.HasSuffix(want[i], "size=") {
				got[i] = got[i][:min(len(got[i]), len(want[i]))]
			}
		}
		compare(t, b.name, ops, got, want)
		if strings.Contains(out, fx.marker) {
			t.Errorf("%s: marker in output", b.name)
		}
	}
}

// TestNestedMounts: a read-write mount inside a read-only one is writable
// through its own path only.
func TestNestedMounts(t *testing.T) {
	fx := newFixture(t)
	sub := filepath.Join(fx.mnt, "sub")
	cfg, closer, err := FSConfig([]Mount{{HostPath: fx.mnt, ReadOnly: true}, {HostPath: sub}})
	must(t, err)
	defer closer.Close()
	ops := fx.expand([]string{
		"write|$M|sub/x.txt|a",
		"write|$M/sub|x.txt|b",
		"goread|$M/sub/x.txt",
		"gowrite|$M/sub/y.txt|c",
		"gowrite|$M/z.txt|d",
		"read|$M|sub/x.txt",
	})
	got, _ := runProbe(t, cfg, ops)
	compare(t, "nested", ops, got, []string{"err EROFS", "ok", `ok "b"`, "ok", "err EROFS", `ok "b"`})
}

// TestGoGuestPrefixQuirk pins a Go wasip1 behaviour documented in
// ESCAPES.md: a path in a sibling folder whose name extends a mount's name
// resolves inside that mount. It stays confined, but lands in the wrong
// place.
func TestGoGuestPrefixQuirk(t *testing.T) {
	fx := newFixture(t)
	got, _ := runProbe(t, ours.cfg(t, fx, false), fx.expand([]string{"goread|$Mx/sub/inner.txt", "goread|$M/sub/inner.txt"}))
	compare(t, "prefix", []string{"sibling", "own"}, got, []string{"err ENOENT", `ok "inner"`})
	got, _ = runProbe(t, ours.cfg(t, fx, false), fx.expand([]string{"goread|$Msub/inner.txt"}))
	compare(t, "prefix", []string{"mntsub"}, got, []string{`ok "inner"`})
}

// fixSizes replaces the folder size in gostat's expected output with the
// host's (it depends on the filesystem).
func fixSizes(t *testing.T, fx *fixture, want []string) []string {
	fi, err := os.Stat(filepath.Join(fx.mnt, "sub"))
	must(t, err)
	out := append([]string(nil), want...)
	for i, w := range out {
		out[i] = strings.Replace(w, "dir=true size=4096", "dir=true size="+strconv.FormatInt(fi.Size(), 10), 1)
	}
	return out
}

func compare(t *testing.T, who string, ops, got, want []string) {
	t.Helper()
	for i := range ops {
		if got[i] != want[i] {
			t.Errorf("%s: op %d %q: got %q, want %q", who, i, ops[i], got[i], want[i])
		}
	}
}
