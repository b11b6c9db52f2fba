package sandboxfs

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ESCAPES.md from the escape test's results")

// escapeCase is one escape attempt: ops run in a fresh fixture, on the
// mount read-only and read-write. ro and rw are the results sandboxfs must
// give (one per op). naiveRO and naiveRW say whether the attempt gets out
// of wazero's own DirMount, which proves the case can catch a naive
// implementation; cases wazero's WASI layer already stops are marked false
// and are covered again below the WASI layer by TestFSLevelEscapes.
type escapeCase struct {
	name     string
	ops      []string
	ro, rw   []string
	escapeOp int // index of the op whose success is itself an escape; 0: the last op, -1: none
	naiveRO  bool
	naiveRW  bool
	roOnly   bool // a write that is only an escape on a read-only mount; rw records what a read-write mount does
}

var escapeCases = []escapeCase{
	{name: "`../` path", ops: []string{"read|$M|../outside/secret.txt"}, ro: l("EPERM"), rw: l("EPERM")},
	{name: "`../` after a subfolder", ops: []string{"read|$M|sub/../../outside/secret.txt"}, ro: l("EPERM"), rw: l("EPERM")},
	{name: "absolute path outside (raw path_open)", ops: []string{"read|$M|$OUT/secret.txt"}, ro: l("EPERM"), rw: l("EPERM")},
	{name: "absolute path outside (Go os.ReadFile)", ops: []string{"goread|$OUT/secret.txt"}, ro: l("EBADF"), rw: l("EBADF")},
	{name: "mount path + `../` (Go os.ReadFile)", ops: []string{"goread|$M/../outside/secret.txt"}, ro: l("EBADF"), rw: l("EBADF")},
	{name: "read pre-existing relative symlink to outside file", ops: []string{"read|$M|rel-link"}, ro: l("EPERM"), rw: l("EPERM"), naiveRO: true, naiveRW: true},
	{name: "read pre-existing absolute symlink to outside file", ops: []string{"read|$M|abs-link"}, ro: l("EPERM"), rw: l("EPERM"), naiveRO: true, naiveRW: true},
	{name: "read relative symlink (Go os.ReadFile)", ops: []string{"goread|$M/rel-link"}, ro: l("EPERM"), rw: l("EPERM"), naiveRO: true, naiveRW: true},
	{name: "stat through relative symlink", ops: []string{"stat|$M|rel-link"}, ro: l("EPERM"), rw: l("EPERM"), naiveRO: true, naiveRW: true},
	{name: "read through symlinked folder", ops: []string{"read|$M|dir-link/secret.txt"}, ro: l("EPERM"), rw: l("EPERM"), naiveRO: true, naiveRW: true},
	{name: "readdir of relative symlinked folder", ops: []string{"ls|$M|dir-link"}, ro: l("EPERM"), rw: l("EPERM"), naiveRO: true, naiveRW: true},
	{name: "readdir of absolute symlinked folder", ops: []string{"ls|$M|absdir-link"}, ro: l("EPERM"), rw: l("EPERM"), naiveRO: true, naiveRW: true},
	{name: "readdir of symlinked folder (Go os.ReadDir)", ops: []string{"gols|$M/dir-link"}, ro: l("EPERM"), rw: l("EPERM"), naiveRO: true, naiveRW: true},
	{name: "readlink of absolute symlink (reveals host path)", ops: []string{"readlink|$M|abs-link"}, ro: l("EPERM"), rw: l("EPERM"), naiveRO: true, naiveRW: true},
	{name: "readlink of relative symlink leaving the mount", ops: []string{"readlink|$M|rel-link"}, ro: l("EPERM"), rw: l("EPERM"), naiveRO: true, naiveRW: true},
	{name: "overwrite outside file through symlink", ops: []string{"write|$M|rel-link|PWNED"}, ro: l("EROFS"), rw: l("EPERM"), naiveRW: true},
	{name: "create file through symlinked folder", ops: []string{"write|$M|dir-link/new.txt|PWNED"}, ro: l("EROFS"), rw: l("EPERM"), naiveRW: true},
	{name: "mkdir through symlinked folder", ops: []string{"mkdir|$M|dir-link/newdir"}, ro: l("EROFS"), rw: l("EPERM"), naiveRW: true},
	{name: "unlink through symlinked folder", ops: []string{"unlink|$M|dir-link/victim.txt"}, ro: l("EROFS"), rw: l("EPERM"), naiveRW: true},
	{name: "truncate through symlink", ops: []string{"truncate|$M|rel-link|0"}, ro: l("EROFS"), rw: l("EPERM"), naiveRW: true},
	{name: "set times through symlink", ops: []string{"utimes|$M|rel-link"}, ro: l("EROFS"), rw: l("EPERM"), naiveRW: true},
	{name: "guest-created relative symlink, then read", ops: []string{"symlink|../outside/secret.txt|$M|g", "read|$M|g"}, ro: l("EPERM", "ENOENT"), rw: l("EPERM", "ENOENT"), escapeOp: 1, naiveRW: true},
	{name: "guest-created absolute symlink, then read", ops: []string{"symlink|$OUT/secret.txt|$M|g", "read|$M|g"}, ro: l("EPERM", "ENOENT"), rw: l("EPERM", "ENOENT"), escapeOp: 1},
	{name: "guest-created folder symlink, then write", ops: []string{"symlink|../outside|$M|g", "write|$M|g/new.txt|PWNED"}, ro: l("EPERM", "EROFS"), rw: l("EPERM", "ENOENT"), escapeOp: 1, naiveRW: true},
	{name: "guest-created hard link to outside file (via symlinked folder), then read", ops: []string{"link|$M|dir-link/secret.txt|$M|h", "read|$M|h"}, ro: l("EPERM", "ENOENT"), rw: l("EPERM", "ENOENT"), naiveRW: true},
	{name: "guest-created hard link inside the mount (refused by policy)", ops: []string{"link|$M|hello.txt|$M|h"}, ro: l("EPERM"), rw: l("EPERM"), escapeOp: -1},
	{name: "hard link from this mount into the other mount", ops: []string{"link|$M|hello.txt|$O|h"}, ro: l("ENOSYS"), rw: l("ENOSYS")},
	{name: "rename out of the mount through symlinked folder", ops: []string{"rename|$M|hello.txt|$M|dir-link/moved.txt"}, ro: l("EROFS"), rw: l("EPERM"), naiveRW: true},
	{name: "rename outside file into the mount, then read", ops: []string{"rename|$M|dir-link/secret.txt|$M|stolen.txt", "read|$M|stolen.txt"}, ro: l("EROFS", "ENOENT"), rw: l("EPERM", "ENOENT"), escapeOp: 1, naiveRW: true},
	{name: "rename out of the mount with `../`", ops: []string{"rename|$M|hello.txt|$M|../outside/moved.txt"}, ro: l("EPERM"), rw: l("EPERM")},
	{name: "rename into the other mount", ops: []string{"rename|$M|hello.txt|$O|moved.txt"}, ro: l("ENOSYS"), rw: l("ENOSYS")},
	{name: "write existing file on read-only mount", ops: []string{"write|$M|hello.txt|X"}, ro: l("EROFS"), rw: l("ok"), roOnly: true},
	{name: "open existing file for writing on read-only mount", ops: []string{"openw|$M|hello.txt"}, ro: l("EROFS"), rw: l("ok"), roOnly: true},
	{name: "create file on read-only mount", ops: []string{"create|$M|new.txt"}, ro: l("EROFS"), rw: l("ok"), roOnly: true},
	{name: "write on read-only mount (Go os.WriteFile)", ops: []string{"gowrite|$M/new.txt|X"}, ro: l("EROFS"), rw: l("ok"), roOnly: true},
	{name: "truncate on read-only mount", ops: []string{"truncate|$M|hello.txt|0"}, ro: l("EROFS"), rw: l("ok"), roOnly: true},
	{name: "mkdir on read-only mount", ops: []string{"mkdir|$M|d"}, ro: l("EROFS"), rw: l("ok"), roOnly: true},
	{name: "unlink on read-only mount", ops: []string{"unlink|$M|hello.txt"}, ro: l("EROFS"), rw: l("ok"), roOnly: true},
	{name: "rmdir on read-only mount", ops: []string{"rmdir|$M|sub"}, ro: l("EROFS"), rw: l("ENOTEMPTY"), roOnly: true},
	{name: "rename on read-only mount", ops: []string{"rename|$M|hello.txt|$M|x.txt"}, ro: l("EROFS"), rw: l("ok"), roOnly: true},
	{name: "set times on read-only mount", ops: []string{"utimes|$M|hello.txt"}, ro: l("EROFS"), rw: l("ok"), roOnly: true},
	{name: "symlink inside read-only mount", ops: []string{"symlink|hello.txt|$M|s"}, ro: l("EPERM"), rw: l("EPERM"), roOnly: true},
}

func l(s ...string) []string { return s }

// attempt runs one case on one backend and reports the results, whether
// anything escaped, and why.
func attempt(t *testing.T, b backend, c escapeCase, ro bool) (codes []string, escaped string) {
	fx := newFixture(t)
	before := snapshot(t, fx.outside)
	res, out := runProbe(t, b.cfg(t, fx, ro), fx.expand(c.ops))
	for _, r := range res {
		codes = append(codes, code(r))
	}
	escOp := c.escapeOp
	if escOp == 0 {
		escOp = len(c.ops) - 1
	}
	switch {
	case strings.Contains(out, fx.marker):
		escaped = "marker read"
	case snapshot(t, fx.outside) != before:
		escaped = "outside changed"
	case !c.roOnly && escOp >= 0 && codes[escOp] == "ok":
		escaped = "succeeded"
	case c.roOnly && ro && codes[escOp] == "ok":
		escaped = "wrote read-only mount"
	}
	if escaped != "" {
		t.Logf("%s ro=%v: %s: %q\n%s", b.name, ro, escaped, res, out)
	} else {
		t.Logf("%s ro=%v: %q", b.name, ro, res)
	}
	return codes, escaped
}

type row struct {
	c                        escapeCase
	ro, rw, naiveRO, naiveRW string
}

func TestEscapes(t *testing.T) {
	var rows []row
	for _, c := range escapeCases {
		t.Run(c.name, func(t *testing.T) {
			r := row{c: c}
			for _, ro := range []bool{true, false} {
				want := c.rw
				if ro {
					want = c.ro
				}
				got, escaped := attempt(t, ours, c, ro)
				if escaped != "" {
					t.Errorf("ro=%v: ESCAPE (%s): %v", ro, escaped, got)
				}
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("ro=%v: guest saw %v, want %v", ro, got, want)
				}
				ngot, nesc := attempt(t, naive, c, ro)
				wantNaive := c.naiveRW
				if ro {
					wantNaive = c.naiveRO
				}
				if (nesc != "") != wantNaive {
					t.Errorf("ro=%v: naive DirMount escaped=%q, expected escape: %v", ro, nesc, wantNaive)
				}
				cell, ncell := strings.Join(got, ", "), strings.Join(ngot, ", ")
				if nesc != "" {
					ncell += " — **escaped** (" + nesc + ")"
				}
				if ro {
					r.ro, r.naiveRO = cell, ncell
				} else {
					r.rw, r.naiveRW = cell, ncell
				}
			}
			rows = append(rows, r)
		})
	}
	if t.Failed() || len(rows) != len(escapeCases) {
		return // failed, or only some cases were selected with -run
	}
	table := escapeTable(rows)
	const path = "ESCAPES.md"
	if *update {
		must(t, os.WriteFile(path, []byte(escapesDoc(table)), 0o644))
		return
	}
	if runtime.GOOS != "linux" {
		return // the recorded errnos were measured on Linux
	}
	doc, err := os.ReadFile(path)
	must(t, err)
	if !strings.Contains(string(doc), table) {
		t.Errorf("%s is out of date; regenerate it with: go test ./host/sandboxfs -run TestEscapes -update\nnew table:\n%s", path, table)
	}
}

func escapeTable(rows []row) string {
	var b strings.Builder
	b.WriteString("| # | escape attempt | guest operations | sandboxfs read-only | sandboxfs read-write | wazero DirMount read-only | wazero DirMount read-write |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for i, r := range rows {
		ops := make([]string, len(r.c.ops))
		for j, op := range r.c.ops {
			ops[j] = "`" + strings.ReplaceAll(op, "|", `\|`) + "`"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s |\n", i+1, r.c.name, strings.Join(ops, "<br>"), r.ro, r.rw, r.naiveRO, r.naiveRW)
	}
	return b.String()
}

func escapesDoc(table string) string {
	return `# sandboxfs: escape attempts and what the guest saw

Generated by ` + "`go test ./host/sandboxfs -run TestEscapes -update`" + ` (Linux, wazero
v1.12.0); TestEscapes fails when this table no longer matches.

A real WASI guest (` + "`testdata/fsprobe`" + `, Go wasip1) ran each attempt in a fresh
folder tree. ` + "`$M`" + ` is the mount under test (at the same absolute path as on the
host), ` + "`$O`" + ` a second, read-write mount, ` + "`$OUT`" + ` a folder outside both holding a
file with a random marker string. Operations are the probe's (raw WASI
preview1 calls relative to the mount's preopen; ` + "`go*`" + ` ones use Go's ` + "`os`" + `
package on absolute paths); one result per operation, WASI errno names.

For every row, sandboxfs was checked to: give exactly these errnos, never
let the marker appear in the guest's output, and leave the outside folder
unchanged (type, size, mtime, content of every entry). The last two
columns run the same attempt on wazero's own ` + "`WithDirMount`" + ` /
` + "`WithReadOnlyDirMount`" + `; "escaped" means the marker was read, the outside
folder changed, or the escaping operation succeeded.

Rows where wazero's DirMount does not escape either are stopped by
wazero's WASI layer before any filesystem code runs (it cleans each path
and refuses ` + "`..`" + ` and absolute paths with EPERM; Go's ` + "`os`" + ` package finds no
preopen for a path outside every mount and uses fd -1, hence EBADF;
renames and links across two mounts are ENOSYS), by its DirFS refusing
absolute symlink targets (EPERM), or by its read-only wrapper (EROFS, or
ENOSYS when opening a file for writing). TestFSLevelEscapes repeats the
` + "`..`" + ` and absolute-path attempts directly against the filesystem, below
that layer. Rows 32-42 are writes that only a read-only mount must refuse;
their read-write columns show what a read-write mount does.

Not an escape, but worth knowing when writing Go guests: Go's wasip1
` + "`os`" + ` package picks the preopen by plain string prefix (syscall/fs_wasip1.go
` + "`preparePath`" + `), so with a mount at ` + "`/data/a`" + ` the path ` + "`/data/ab/x`" + ` opens
` + "`/data/a/b/x`" + ` inside the mount (TestGoGuestPrefixQuirk).

` + table
}
