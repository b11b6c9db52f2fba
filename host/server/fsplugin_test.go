package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fsPluginWasm is plugins/fs/fs.wasm, which scripts/build-plugins.sh builds.
func fsPluginWasm(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(fixture.Plugin(t, "fs"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// newFsPluginServer serves plugins/fs, unprefixed, with these grants.
func newFsPluginServer(t *testing.T, grants []plugin.Grant) (*server.Server, *plugin.Plugin) {
	t.Helper()
	p, err := servertest.Runtime(t).Load(context.Background(), plugin.Config{Name: "fs", Source: "plugins/fs/fs.wasm", Wasm: fsPluginWasm(t), Grants: grants})
	if err != nil {
		t.Fatalf("load plugins/fs: %v", err)
	}
	srv, _ := servertest.Serve(t, server.Options{Features: server.Features{Tools: true, Resources: true}}, p)
	return srv, p
}

// fsTool calls a tool of plugins/fs and returns its text and isError,
// failing the test if the outside marker or a bare errno ever appears.
func fsTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res := servertest.Call(t, cs, name, args)
	out := servertest.Text(res) + servertest.MustJSON(res)
	if strings.Contains(out, marker) {
		t.Fatalf("%s %v returned a file outside the mounts:\n%s", name, args, out)
	}
	for _, bare := range []string{"os error", "I/O error", "EIO"} {
		if strings.Contains(out, bare) {
			t.Fatalf("%s %v: unclear error %q in:\n%s", name, args, bare, out)
		}
	}
	if c := category(res); c != "" {
		t.Fatalf("%s %v: host error category %s (the plugin should answer itself):\n%s", name, args, c, out)
	}
	return servertest.Text(res), res.IsError
}

func TestFsPlugin(t *testing.T) {
	grant, outside := fsTree(t)
	rw := filepath.Join(filepath.Dir(grant), "rw")
	os.MkdirAll(rw, 0o755)
	os.Symlink("../outside", filepath.Join(rw, "outlink"))
	srv, p := newFsPluginServer(t, []plugin.Grant{{Path: grant, ReadOnly: true}, {Path: rw}})
	cs := connect(t, srv, nil)
	g, o := grant, outside
	allowed := "(allowed: " + g + " (read-only), " + rw + ")"

	ok := func(t *testing.T, name string, args map[string]any, wants ...string) string {
		t.Helper()
		s, isErr := fsTool(t, cs, name, args)
		if isErr {
			t.Errorf("%s %v: unexpected error: %s", name, args, s)
		}
		for _, w := range wants {
			if !strings.Contains(s, w) {
				t.Errorf("%s %v: want %q in:\n%s", name, args, w, s)
			}
		}
		return s
	}
	fails := func(t *testing.T, name string, args map[string]any, want string) {
		t.Helper()
		s, isErr := fsTool(t, cs, name, args)
		if !isErr || !strings.Contains(s, want) {
			t.Errorf("%s %v: want an error containing %q, got (isError=%v):\n%s", name, args, want, isErr, s)
		}
	}

	t.Run("list_dir", func(t *testing.T) {
		ok(t, "list_dir", map[string]any{}, "read-only\t"+g, "read-write\t"+rw)
		ok(t, "list_dir", map[string]any{"path": g}, g+": 4 entries", "file\t8\ta.txt", "dir\t-\tsub/", "symlink\t-\toutlink")
		ok(t, "list_dir", map[string]any{"path": g, "limit": 1}, "truncated: showing the first 1 of 4 entries")
		fails(t, "list_dir", map[string]any{"path": g + "/outlink"}, "permission denied by the sandbox: "+g+"/outlink")
		fails(t, "list_dir", map[string]any{"path": o}, "path is outside the allowed roots: "+o+" "+allowed)
		fails(t, "list_dir", map[string]any{"path": g + "/nope"}, "not found: "+g+"/nope")
	})

	t.Run("read_file", func(t *testing.T) {
		ok(t, "read_file", map[string]any{"path": g + "/a.txt"}, "inside-a")
		s := ok(t, "read_file", map[string]any{"path": g + "/a.txt", "offset": 2, "length": 3}, "bytes 2-5 of 8")
		if !strings.HasPrefix(s, "sid") {
			t.Errorf("offset/length: %q", s)
		}
		fails(t, "read_file", map[string]any{"path": g + "/outlink/secret.txt"}, "permission denied by the sandbox: ")
		fails(t, "read_file", map[string]any{"path": g + "/abslink"}, "permission denied by the sandbox: ")
		fails(t, "read_file", map[string]any{"path": o + "/secret.txt"}, "path is outside the allowed roots: "+o+"/secret.txt "+allowed)
		fails(t, "read_file", map[string]any{"path": g + "/../outside/secret.txt"}, "path is outside the allowed roots: ")
		fails(t, "read_file", map[string]any{"path": "/etc/hostname"}, "path is outside the allowed roots: /etc/hostname")
		fails(t, "read_file", map[string]any{"path": "a.txt"}, "path must be absolute: a.txt")
		fails(t, "read_file", map[string]any{"path": g + "/nope.txt"}, "not found: "+g+"/nope.txt")
		fails(t, "read_file", map[string]any{"path": g + "/sub"}, "is a directory: "+g+"/sub")
	})

	t.Run("search", func(t *testing.T) {
		ok(t, "search", map[string]any{"path": g, "pattern": "*.txt"}, "file\t8\t"+g+"/a.txt", "file\t8\t"+g+"/sub/b.txt")
		ok(t, "search", map[string]any{"path": g, "content": "inside-"}, g+"/a.txt:1: inside-a", g+"/sub/b.txt:1: inside-b")
		ok(t, "search", map[string]any{"path": g, "content": "MARKER"}, "no matches")
		ok(t, "search", map[string]any{"path": g, "pattern": "?.txt", "max_results": 1}, "truncated: reached max_results=1")
		fails(t, "search", map[string]any{"path": o}, "path is outside the allowed roots: ")
		fails(t, "search", map[string]any{"path": g + "/outlink"}, "permission denied by the sandbox: ")
	})

	t.Run("stat", func(t *testing.T) {
		ok(t, "stat", map[string]any{"path": g + "/a.txt"}, "type: file\nsize: 8 bytes\nmodified: 20", "mount: "+g+" (read-only)")
		ok(t, "stat", map[string]any{"path": rw}, "type: dir", "mount: "+rw+" (read-write)")
		ok(t, "stat", map[string]any{"path": g + "/abslink"}, "type: symlink", "points to: permission denied by the sandbox")
		fails(t, "stat", map[string]any{"path": o + "/secret.txt"}, "path is outside the allowed roots: ")
	})

	t.Run("write_file", func(t *testing.T) {
		fails(t, "write_file", map[string]any{"path": g + "/new.txt", "content": "x"},
			"read-only: "+g+"/new.txt is under "+g+", which is mounted read-only (writable roots: "+rw+")")
		fails(t, "write_file", map[string]any{"path": o + "/new.txt", "content": "x"}, "path is outside the allowed roots: ")
		fails(t, "write_file", map[string]any{"path": rw + "/outlink/pwned.txt", "content": "x"}, "permission denied by the sandbox: ")
		ok(t, "write_file", map[string]any{"path": rw + "/n.txt", "content": "one\n"}, "created "+rw+"/n.txt: wrote 4 bytes")
		ok(t, "write_file", map[string]any{"path": rw + "/n.txt", "content": "two\n", "append": true}, "appended to")
		ok(t, "write_file", map[string]any{"path": rw + "/d/e.txt", "content": "e", "create_dirs": true}, "created")
		if b, _ := os.ReadFile(filepath.Join(rw, "n.txt")); string(b) != "one\ntwo\n" {
			t.Errorf("n.txt = %q", b)
		}
		if b, _ := os.ReadFile(filepath.Join(rw, "d", "e.txt")); string(b) != "e" {
			t.Errorf("d/e.txt = %q", b)
		}
		for _, f := range []string{filepath.Join(g, "new.txt"), filepath.Join(o, "new.txt"), filepath.Join(o, "pwned.txt")} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%s was written", f)
			}
		}
	})

	t.Run("resources", func(t *testing.T) {
		ctx := context.Background()
		lt, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil || len(lt.ResourceTemplates) != 1 || lt.ResourceTemplates[0].URITemplate != "file:///{+path}" {
			t.Fatalf("resources/templates/list: %v %v", servertest.MustJSON(lt), err)
		}
		read := func(uri string) (*mcp.ReadResourceResult, error) {
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if strings.Contains(servertest.MustJSON(rr)+servertest.MustJSON(err), marker) {
				t.Fatalf("read %s returned a file outside the mounts", uri)
			}
			return rr, err
		}
		for _, uri := range []string{"file://" + o + "/secret.txt", "file://" + g + "/outlink/secret.txt",
			"file://" + g + "/../outside/secret.txt", "file://" + g + "/abslink"} {
			_, err := read(uri)
			if err == nil || !(strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "outside the allowed roots") ||
				strings.Contains(err.Error(), "permission denied by the sandbox")) {
				t.Errorf("read %s: want a not-found, outside or sandbox error, got %v", uri, err)
			}
		}
		os.WriteFile(filepath.Join(rw, "my file.txt"), []byte("spaced"), 0o644)
		for uri, want := range map[string]string{"file://" + g + "/a.txt": "inside-a", "file://" + rw + "/my%20file.txt": "spaced"} {
			rr, err := read(uri)
			switch {
			case err != nil && strings.Contains(err.Error(), "no folders are mounted"):
				// The host's resources/read passes the guest no mounts
				// (registry.ReadResource), so it reached the guest, which
				// refused; the guest's side is checked in the next subtest.
				t.Logf("resources/read through the server: the host mounts no folders for resource reads: %v", err)
			case err != nil:
				t.Errorf("read %s: %v", uri, err)
			case len(rr.Contents) != 1 || rr.Contents[0].Text != want || rr.Contents[0].MIMEType != "text/plain":
				t.Errorf("read %s: %s", uri, servertest.MustJSON(rr))
			}
		}
	})

	// The guest's read_resource, in the real sandbox with the mounts a
	// session would have.
	t.Run("read_resource_with_mounts", func(t *testing.T) {
		mounts := []abi.Mount{{Path: g, ReadOnly: true}, {Path: rw}}
		ctx := context.Background()
		invoke := func(uri string) (string, string) {
			in, _ := json.Marshal(map[string]any{"request": map[string]string{"uri": uri},
				"context": abi.Context{Plugin: "fs", Mounts: mounts}})
			out, cerr := p.InvokeWith(ctx, abi.ExportReadResource, in, plugin.CallOptions{Mounts: mounts})
			msg := ""
			if cerr != nil {
				msg = cerr.Message
			}
			if strings.Contains(string(out)+msg, marker) {
				t.Fatalf("read_resource %s returned a file outside the mounts", uri)
			}
			return string(out), msg
		}
		out, msg := invoke("file://" + g + "/a.txt")
		if msg != "" || !strings.Contains(out, `"text":"inside-a"`) || !strings.Contains(out, `"mimeType":"text/plain"`) {
			t.Errorf("read a.txt: %s %s", out, msg)
		}
		if out, msg := invoke("file://" + rw + "/my%20file.txt"); !strings.Contains(out, `"text":"spaced"`) {
			t.Errorf("read my%%20file.txt: %s %s", out, msg)
		}
		if out, msg := invoke("file://" + g + "/sub"); !strings.Contains(out, `file\t8\tb.txt`) {
			t.Errorf("read sub/: %s %s", out, msg)
		}
		for uri, want := range map[string]string{
			"file://" + o + "/secret.txt":         "path is outside the allowed roots: " + o + "/secret.txt",
			"file://" + g + "/outlink/secret.txt": "permission denied by the sandbox: ",
			"file://" + g + "/nope":               "not found: " + g + "/nope",
			"http://example.com/a":                "not found: ",
		} {
			if _, msg := invoke(uri); !strings.Contains(msg, want) {
				t.Errorf("read %s: want %q, got %q", uri, want, msg)
			}
		}
	})
}
