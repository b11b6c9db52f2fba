package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/source"
	"github.com/mcpwasm/mcpwasm/host/source/store"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/ocitest"
)

// TestPullThenOffline: pull fetches a config's registry and https plugins
// into the store once; serve --offline then serves them with the registry
// and the web server gone, and never touches the network.
func TestPullThenOffline(t *testing.T) {
	isolate(t)
	reg := ocitest.New(t)
	echo := readFixture(t, "echo")
	desc := reg.PushWasm(t, "plugins/echo", "1.0", echo)
	// The same module with a custom section appended: other bytes.
	echo2 := append(append([]byte(nil), echo...), 0, 6, 4, 't', 'e', 's', 't', 'x')
	web := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(echo2) }))
	trustTLS(t, web)
	sum := strings.TrimPrefix(store.Digest(echo2), "sha256:")
	storeDir := filepath.Join(t.TempDir(), "store")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpwasm.toml")
	src := "oci://" + reg.Host() + "/plugins/echo:1.0"
	os.WriteFile(cfg, []byte(`
[sources]
store = "`+storeDir+`"

[[plugin]]
path = "`+src+`"

[[plugin]]
name = "web"
path = "`+web.URL+`/echo.wasm"
sha256 = "`+sum+`"
`), 0o600)

	_, errOut, code := runCLI(t, "pull", "--config", cfg)
	if code != 0 || !strings.Contains(errOut, "pulled "+src+"  "+desc.Digest.String()) || !strings.Contains(errOut, ", pinned,") ||
		!strings.Contains(errOut, "pulled "+web.URL+"/echo.wasm  sha256:"+sum) || strings.Count(errOut, "\n") != 2 {
		t.Fatalf("pull: exit %d\n%s", code, errOut)
	}
	if lock, _ := os.ReadFile(filepath.Join(dir, source.LockName)); !strings.Contains(string(lock), src+" "+desc.Digest.String()) {
		t.Fatalf("lock:\n%s", lock)
	}
	if st, err := os.Stat(storeDir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("store folder: %v %v", err, st.Mode())
	}
	// Pulled and pinned: pulling again asks nothing.
	before := reg.Requests()
	if _, errOut, code = runCLI(t, "pull", "--config", cfg); code != 0 || !strings.Contains(errOut, "ok     "+src) || reg.Requests() != before {
		t.Fatalf("pull again: exit %d, %d requests\n%s", code, reg.Requests()-before, errOut)
	}
	// With the registry still up, --offline asks it nothing.
	cs, stderr := stdioClient(t, "--offline", "--config", cfg)
	callTool(t, cs, "echo_echo", stderr)
	callTool(t, cs, "web_echo", stderr)
	cs.Close()
	if reg.Requests() != before {
		t.Fatalf("serve --offline sent %d requests to the registry", reg.Requests()-before)
	}

	// The registry and the web server are gone: offline or not, the pinned
	// plugins come from the store.
	reg.Close()
	web.Close()
	for _, flags := range [][]string{{"--offline"}, nil} {
		cs, stderr := stdioClient(t, append(flags, "--config", cfg)...)
		if got := toolNames(t, cs, stderr); got != "echo_echo,web_echo" {
			t.Fatalf("%v: tools %s\n%s", flags, got, stderr)
		}
		callTool(t, cs, "echo_echo", stderr)
		callTool(t, cs, "web_echo", stderr)
		cs.Close()
	}

	// A source never pulled cannot be served offline: the error names it
	// and says what to do; the others serve.
	other := "oci://" + reg.Host() + "/plugins/other:2"
	cs, stderr = stdioClient(t, "--offline", "--config", cfg, other)
	if got := toolNames(t, cs, stderr); got != "echo_echo,web_echo" {
		t.Fatalf("tools %s\n%s", got, stderr)
	}
	if log := stderr.String(); !strings.Contains(log, other) || !strings.Contains(log, "offline") || !strings.Contains(log, "mcpwasm pull") {
		t.Fatalf("offline miss not reported:\n%s", log)
	}
}

// TestPullUpdateAndMismatch: a pinned tag keeps serving what it was pinned
// to after the tag moves; pull --update moves the pin; a pin the registry
// no longer has is a load error naming both digests.
func TestPullUpdateAndMismatch(t *testing.T) {
	isolate(t)
	reg := ocitest.New(t)
	v1 := reg.PushWasm(t, "tools/x", "stable", readFixture(t, "echo"))
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpwasm.toml")
	src := "oci://" + reg.Host() + "/tools/x:stable"
	os.WriteFile(cfg, []byte("[[plugin]]\npath = \""+src+"\"\n"), 0o600)
	if _, errOut, code := runCLI(t, "pull", "--config", cfg); code != 0 {
		t.Fatalf("pull: %s", errOut)
	}
	v2 := reg.PushWasm(t, "tools/x", "stable", readFixture(t, "constant"))

	// The tag moved; the pin did not.
	cs, stderr := stdioClient(t, "--config", cfg)
	if got := toolNames(t, cs, stderr); got != "x_echo" {
		t.Fatalf("pinned: tools %s\n%s", got, stderr)
	}
	cs.Close()

	_, errOut, code := runCLI(t, "pull", "--update", "--config", cfg)
	if code != 0 || !strings.Contains(errOut, "moved  "+src+"  "+v2.Digest.String()) || !strings.Contains(errOut, "pin moved from "+v1.Digest.String()) {
		t.Fatalf("pull --update: exit %d\n%s", code, errOut)
	}
	// The update declares other tools: held until approved (host/trust),
	// then served.
	cs, stderr = stdioClient(t, "--config", cfg)
	if got := toolNames(t, cs, stderr); got != "" || !strings.Contains(stderr.String(), "declaration held") {
		t.Fatalf("after --update, before trust: tools %s\n%s", got, stderr)
	}
	cs.Close()
	if out, errOut, code := runCLI(t, "trust", "--config", cfg); code != 0 {
		t.Fatalf("trust: exit %d\n%s%s", code, out, errOut)
	}
	cs, stderr = stdioClient(t, "--config", cfg)
	if got := toolNames(t, cs, stderr); got != "x_a,x_b" {
		t.Fatalf("after --update and trust: tools %s\n%s", got, stderr)
	}
	cs.Close()

	// The lock pins v2; the registry loses v2 and the tag goes back to
	// v1; a fresh store must fetch v2 and cannot.
	reg.PushWasm(t, "tools/x", "stable", readFixture(t, "echo"))
	reg.Repo("tools/x").Delete(v2.Digest)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	_, errOut, code = runCLI(t, "validate", "--config", cfg)
	if code == 0 || !strings.Contains(errOut, "digest mismatch") || !strings.Contains(errOut, v2.Digest.String()) ||
		!strings.Contains(errOut, "now points to "+v1.Digest.String()) || !strings.Contains(errOut, "pull --update") {
		t.Fatalf("lost pin: exit %d\n%s", code, errOut)
	}
}

// TestPullProgress: on a terminal, a download shows bytes and rate on one
// line rewritten in place, cleared before the plugin's own line.
func TestPullProgress(t *testing.T) {
	var buf bytes.Buffer
	p := newPullProgress(&buf, true)
	p.update(source.Progress{Source: "oci://r/x:1", What: "plugin", Done: 512 << 10, Total: 2 << 20})
	p.update(source.Progress{Source: "oci://r/x:1", What: "plugin", Done: 2 << 20, Total: 2 << 20})
	p.done()
	out := buf.String()
	if !strings.Contains(out, "\r\x1b[Koci://r/x:1  plugin  512.0 KiB / 2.0 MiB  ") || !strings.Contains(out, "2.0 MiB / 2.0 MiB") ||
		!strings.HasSuffix(out, "/s\r\x1b[K") {
		t.Fatalf("%q", out)
	}
	buf.Reset()
	p = newPullProgress(&buf, false)
	p.update(source.Progress{Source: "oci://r/x:1", Done: 1, Total: 2})
	p.done()
	if buf.Len() != 0 {
		t.Fatalf("progress written to a file: %q", buf.String())
	}
}

// TestLockFileLocation: without a config, a tag given on the command line
// is pinned in mcpwasm.lock in the store folder (the default one, or
// --store's); with --config, beside the config, for the command line's
// tags too (docs/security.md, "The lock file").
func TestLockFileLocation(t *testing.T) {
	cache := isolate(t)
	reg := ocitest.New(t)
	desc := reg.PushWasm(t, "plugins/echo", "1.0", readFixture(t, "echo"))
	src := "oci://" + reg.Host() + "/plugins/echo:1.0"
	pinned := func(path string) bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), src+" "+desc.Digest.String())
	}

	if _, errOut, code := runCLI(t, "pull", src); code != 0 || !pinned(filepath.Join(cache, "mcpwasm", source.LockName)) {
		t.Fatalf("pull without a config: exit %d, not pinned in the default store's lock\n%s", code, errOut)
	}
	storeDir := filepath.Join(t.TempDir(), "store")
	if _, errOut, code := runCLI(t, "pull", "--store", storeDir, src); code != 0 || !pinned(filepath.Join(storeDir, source.LockName)) {
		t.Fatalf("pull --store: exit %d, not pinned in %s\n%s", code, storeDir, errOut)
	}
	dir := t.TempDir()
	cfg := fixture.Config(t, dir, "[sources]\nstore = \""+storeDir+"\"\n")
	if _, errOut, code := runCLI(t, "pull", "--config", cfg, src); code != 0 || !pinned(filepath.Join(dir, source.LockName)) {
		t.Fatalf("pull --config with a tag argument: exit %d, not pinned beside the config\n%s", code, errOut)
	}
}

// TestOfflineNothingToServe: serve --offline with no source in the store
// and nothing else to serve exits 2, naming the source and "no plugin to
// serve", rather than serving an empty server (docs/security.md).
func TestOfflineNothingToServe(t *testing.T) {
	isolate(t)
	src := "oci://127.0.0.1:1/plugins/never:1"
	_, errOut, code := runCLI(t, "serve", "--offline", "--cache-dir", "off", src)
	if code != 2 || !strings.Contains(errOut, src) || !strings.Contains(errOut, "mcpwasm pull") || !strings.Contains(errOut, "no plugin to serve") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}
