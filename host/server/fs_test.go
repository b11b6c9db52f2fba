package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const marker = "MARKER-3f9c0a-OUTSIDE-THE-SANDBOX"

// fsTree builds, in this process's fsBase: grant/ (a.txt, sub/b.txt, a
// relative and an absolute symlink to outside), outside/secret.txt holding
// the marker. The folders are made anew for each test but keep their paths:
// a plugin's declarations are cached by its configuration, grants
// included, so a test granting the path an earlier one granted loads from
// the cache instead of instantiating the plugin (3 s of each such test
// under -race, when every test had a temp dir of its own). Tests using it
// must not run in parallel with each other.
func fsTree(t *testing.T) (grant, outside string) {
	t.Helper()
	if fsBase == "" {
		t.Fatal("no fsBase: TestMain did not run")
	}
	grant, outside = filepath.Join(fsBase, "grant"), filepath.Join(fsBase, "outside")
	reset := func() {
		os.RemoveAll(grant)
		os.RemoveAll(outside)
	}
	reset()
	t.Cleanup(reset)
	for _, d := range []string{grant, filepath.Join(grant, "sub"), outside} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(grant, "a.txt"), []byte("inside-a"), 0o644)
	os.WriteFile(filepath.Join(grant, "sub", "b.txt"), []byte("inside-b"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(marker), 0o644)
	os.Symlink("../outside", filepath.Join(grant, "outlink"))
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(grant, "abslink"))
	return grant, outside
}

// fsBase is the canonical folder fsTree builds in, one per test process.
var fsBase string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpwasm-server-fs-")
	if err == nil {
		fsBase, err = plugin.Canonical(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fsCall runs fsprobe operations and returns its report, failing the test
// if the marker from outside ever appears.
func fsCall(t *testing.T, cs *mcp.ClientSession, ops ...[]string) string {
	t.Helper()
	res := servertest.Call(t, cs, "fs", map[string]any{"ops": ops})
	out := servertest.Text(res) + servertest.MustJSON(res)
	if strings.Contains(out, marker) {
		t.Fatalf("the guest read a file outside its mounts:\n%s", servertest.Text(res))
	}
	if strings.Contains(out, "I/O error") {
		t.Fatalf("an escape attempt surfaced as EIO instead of a clear errno:\n%s", servertest.Text(res))
	}
	return servertest.Text(res)
}

// expect checks that each operation's line in report ends as wanted.
func expect(t *testing.T, report string, want map[string]string) {
	t.Helper()
	for op, w := range want {
		found := false
		for _, line := range strings.Split(report, "\n") {
			if strings.HasPrefix(line, op+" -> ") {
				found = true
				if !strings.Contains(line, w) {
					t.Errorf("%s: got %q, want %q", op, strings.TrimPrefix(line, op+" -> "), w)
				}
			}
		}
		if !found {
			t.Errorf("no result for %q in:\n%s", op, report)
		}
	}
}

// TestFilesystemEscapes tries every way out of a mount, read-only and
// read-write, through the real server and a go-sdk client.
func TestFilesystemEscapes(t *testing.T) {
	for _, mode := range []string{"ro", "rw"} {
		t.Run(mode, func(t *testing.T) {
			grant, outside := fsTree(t)
			srv, _ := newServer(t, false, loadSpec{name: "fsprobe",
				cfg: plugin.Config{Grants: []plugin.Grant{{Path: grant, ReadOnly: mode == "ro"}}}})
			cs := connect(t, srv, nil)
			g, o := grant, outside
			denied, rofs := "Operation not permitted", "Read-only file system"
			writeErr := denied
			if mode == "ro" {
				writeErr = rofs
			}
			report := fsCall(t, cs,
				[]string{"read", g + "/a.txt"},
				[]string{"read", g + "/../outside/secret.txt"},
				[]string{"read", o + "/secret.txt"},
				[]string{"read", "/etc/hostname"},
				[]string{"read", g + "/outlink/secret.txt"},
				[]string{"read", g + "/abslink"},
				[]string{"readdir", g + "/outlink"},
				[]string{"symlink", "../outside", g + "/mylink"},
				[]string{"read", g + "/mylink/secret.txt"},
				[]string{"link", g + "/outlink/secret.txt", g + "/hardlink"},
				[]string{"read", g + "/hardlink"},
				[]string{"rename", g + "/a.txt", o + "/stolen.txt"},
				[]string{"rename", g + "/outlink/secret.txt", g + "/pulled.txt"},
				[]string{"write", g + "/outlink/pwned.txt", "x"},
				[]string{"write", g + "/new.txt", "written"},
			)
			expect(t, report, map[string]string{
				"read " + g + "/a.txt":                                 "ok: inside-a",
				"read " + g + "/outlink/secret.txt":                    denied,
				"read " + g + "/abslink":                               denied,
				"readdir " + g + "/outlink":                            denied,
				"symlink ../outside " + g + "/mylink":                  "error",
				"read " + g + "/mylink/secret.txt":                     "error",
				"link " + g + "/outlink/secret.txt " + g + "/hardlink": "error",
				"read " + g + "/hardlink":                              "error",
				"rename " + g + "/a.txt " + o + "/stolen.txt":          "error",
				"write " + g + "/outlink/pwned.txt x":                  writeErr,
			})
			for _, op := range []string{"read " + g + "/../outside/secret.txt", "read " + o + "/secret.txt", "read /etc/hostname"} {
				expect(t, report, map[string]string{op: "error"})
			}
			if _, err := os.Stat(filepath.Join(outside, "pwned.txt")); err == nil {
				t.Error("a file was written outside the mount")
			}
			if _, err := os.Stat(filepath.Join(outside, "stolen.txt")); err == nil {
				t.Error("a file was renamed out of the mount")
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != marker {
				t.Error("the outside file changed")
			}
			if mode == "ro" {
				expect(t, report, map[string]string{"write " + g + "/new.txt written": rofs})
			} else {
				expect(t, report, map[string]string{"write " + g + "/new.txt written": "ok"})
				if b, _ := os.ReadFile(filepath.Join(grant, "new.txt")); string(b) != "written" {
					t.Error("a write inside a read-write mount did not land")
				}
			}
		})
	}
}

// TestNoGrantNoFilesystem: a plugin without a grant sees nothing at all.
func TestNoGrantNoFilesystem(t *testing.T) {
	grant, _ := fsTree(t)
	srv, _ := newServer(t, false, loadSpec{name: "fsprobe"})
	report := fsCall(t, connect(t, srv, nil), []string{"read", grant + "/a.txt"}, []string{"readdir", "/"})
	if strings.Contains(report, "ok:") || strings.Contains(report, "mount ") {
		t.Fatalf("a plugin without grants saw files:\n%s", report)
	}
}

// TestClientRootsNarrow: mounts are the grant ∩ the client's roots; a root
// outside the grant is ignored; two HTTP sessions with different roots see
// different files.
func TestClientRootsNarrow(t *testing.T) {
	grant, outside := fsTree(t)
	srv, _ := newServer(t, false, loadSpec{name: "fsprobe",
		cfg: plugin.Config{Grants: []plugin.Grant{{Path: grant, ReadOnly: true}}}})
	hs := httptest.NewServer(httpserve.Handler(srv, httpserve.Options{}))
	t.Cleanup(hs.Close) // after the sessions' cleanups, which close their streams
	session := func(roots ...string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil)
		var rs []*mcp.Root
		for _, r := range roots {
			rs = append(rs, &mcp.Root{URI: "file://" + r})
		}
		c.AddRoots(rs...)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	sub := session(grant + "/sub")
	whole := session(grant, outside) // outside is not granted: ignored
	r1 := fsCall(t, sub, []string{"read", grant + "/sub/b.txt"}, []string{"read", grant + "/a.txt"})
	expect(t, r1, map[string]string{"read " + grant + "/sub/b.txt": "ok: inside-b", "read " + grant + "/a.txt": "error"})
	if !strings.Contains(r1, "mount "+grant+"/sub ro=true") {
		t.Fatalf("session 1 mounts:\n%s", r1)
	}
	r2 := fsCall(t, whole, []string{"read", grant + "/a.txt"}, []string{"read", outside + "/secret.txt"})
	expect(t, r2, map[string]string{"read " + grant + "/a.txt": "ok: inside-a", "read " + outside + "/secret.txt": "error"})
	if strings.Contains(r2, "mount "+outside) {
		t.Fatalf("a client root outside the grant was mounted:\n%s", r2)
	}
}

// TestClientRootsModern: a 2026-07-28 client's roots are fetched by a round
// trip and narrow the mounts the same way.
func TestClientRootsModern(t *testing.T) {
	grant, _ := fsTree(t)
	srv, _ := newServer(t, false, loadSpec{name: "fsprobe",
		cfg: plugin.Config{Grants: []plugin.Grant{{Path: grant, ReadOnly: true}}}})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil)
	c.AddRoots(&mcp.Root{URI: "file://" + grant + "/sub"})
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r := fsCall(t, cs, []string{"read", grant + "/sub/b.txt"}, []string{"read", grant + "/a.txt"})
	expect(t, r, map[string]string{"read " + grant + "/sub/b.txt": "ok: inside-b", "read " + grant + "/a.txt": "error"})
}

// TestFilesystemEscapesAudited: each path that leaves the mount is a
// denial in the audit log, naming the plugin and the path, and one call's
// denials are bounded.
func TestFilesystemEscapesAudited(t *testing.T) {
	grant, _ := fsTree(t)
	rec := &servertest.Events{}
	srv, _ := newServerWith(t, false, server.Options{Name: "test", Audit: rec.Log()}, plugin.RuntimeOptions{},
		loadSpec{name: "fsprobe", cfg: plugin.Config{Grants: []plugin.Grant{{Path: grant, ReadOnly: true}}}})
	cs := connect(t, srv, nil)
	fsCall(t, cs, []string{"read", grant + "/a.txt"}, []string{"read", grant + "/outlink/secret.txt"})
	d := rec.Denials(audit.DenyFS)
	if len(d) != 1 || d[0].Plugin != "fsprobe" || !strings.Contains(d[0].Reason, "outlink/secret.txt") {
		t.Fatalf("denials after one escape: %+v", d)
	}
	var ops [][]string
	for range 20 {
		ops = append(ops, []string{"read", grant + "/abslink"})
	}
	fsCall(t, cs, ops...)
	if d := rec.Denials(audit.DenyFS); len(d) != 1+9 || !strings.Contains(d[len(d)-1].Reason, "not recorded") {
		t.Fatalf("20 escapes in one call made %d more denials, want 9 (8 and a note): %+v", len(d)-1, d[len(d)-1])
	}
}
