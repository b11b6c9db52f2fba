package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/source"
	"github.com/mcpwasm/mcpwasm/host/source/store"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/ocitest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// isolate gives the binaries this test starts their own user cache folder
// (the default plugin store) and an empty Docker credential folder.
func isolate(t *testing.T) string {
	t.Helper()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	return cache
}

// callTool calls an echo tool and checks the guest answered.
func callTool(t *testing.T, cs *mcp.ClientSession, tool string, stderr fmt.Stringer) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "from the registry"}})
	if err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s", tool, err, stderr)
	}
	out, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(out), `"text":"from the registry"`) {
		t.Fatalf("%s: %+v\nstderr:\n%s", tool, res, stderr)
	}
}

// trustTLS makes the binaries this test starts trust srv's certificate.
func trustTLS(t *testing.T, srv *httptest.Server) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", p)
}

// TestServeRemoteSources: oci:// and https:// plugins, in the config and
// as arguments, are fetched, pinned and served; a tool of each answers
// through go-sdk's client.
func TestServeRemoteSources(t *testing.T) {
	isolate(t)
	reg := ocitest.New(t)
	echo := fixture.Bytes(t, "echo")
	desc := reg.PushWasm(t, "plugins/echo", "1.0", echo)
	reg.PushWasm(t, "plugins/second", "latest", echo)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(echo) }))
	defer srv.Close()
	trustTLS(t, srv)
	sum := strings.TrimPrefix(store.Digest(echo), "sha256:")

	dir := t.TempDir()
	cfg := fixture.Config(t, dir, `
[[plugin]]
path = "oci://`+reg.Host()+`/plugins/echo:1.0"

[[plugin]]
name = "web"
path = "`+srv.URL+`/dl/echo.wasm"
sha256 = "`+sum+`"
`)
	cs, stderr := stdioClient(t, "--config", cfg,
		"oci://"+reg.Host()+"/plugins/second@"+reg.Repo("plugins/second").MustResolve(t, "latest"),
		srv.URL+"/other/third.wasm#sha256="+sum)
	if got := toolNames(t, cs, stderr); got != "echo_echo,second_echo,third_echo,web_echo" {
		t.Fatalf("tools = %s\nstderr:\n%s", got, stderr)
	}
	for _, tool := range []string{"echo_echo", "web_echo", "second_echo", "third_echo"} {
		callTool(t, cs, tool, stderr)
	}
	lock, err := os.ReadFile(filepath.Join(dir, "mcpwasm.lock"))
	if err != nil || !strings.Contains(string(lock), "oci://"+reg.Host()+"/plugins/echo:1.0 "+desc.Digest.String()) {
		t.Fatalf("lock file: %v\n%s", err, lock)
	}
	var pins []string // the pin lines, not the declarations approved (decl …)
	for _, l := range strings.Split(string(lock), "\n") {
		if !strings.HasPrefix(l, "decl ") {
			pins = append(pins, l)
		}
	}
	if p := strings.Join(pins, "\n"); strings.Contains(p, "second") || strings.Contains(p, srv.URL) {
		t.Fatalf("a digest or sha256 source was pinned:\n%s", lock)
	}

	// An https:// plugin without its sha256 is refused, naming the file
	// and the plugin; nothing is fetched.
	os.WriteFile(cfg, []byte("[[plugin]]\nname = \"web\"\npath = \""+srv.URL+"/dl/echo.wasm\"\n"), 0o600)
	_, errOut, code := runCLI(t, "validate", "--config", cfg)
	if code == 0 || !strings.Contains(errOut, "mcpwasm.toml") || !strings.Contains(errOut, `"web"`) || !strings.Contains(errOut, "needs sha256") {
		t.Fatalf("https without sha256: exit %d\n%s", code, errOut)
	}
	_, errOut, code = runCLI(t, "call", srv.URL+"/dl/echo.wasm", "echo")
	if code == 0 || !strings.Contains(errOut, "needs its sha256") || !strings.Contains(errOut, srv.URL+"/dl/echo.wasm") {
		t.Fatalf("https argument without sha256: exit %d\n%s", code, errOut)
	}
}

// TestPullThenOffline: pull fetches a config's registry and https plugins
// into the store once; serve --offline then serves them with the registry
// and the web server gone, and never touches the network.
func TestPullThenOffline(t *testing.T) {
	isolate(t)
	reg := ocitest.New(t)
	echo := fixture.Bytes(t, "echo")
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
	v1 := reg.PushWasm(t, "tools/x", "stable", fixture.Bytes(t, "echo"))
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpwasm.toml")
	src := "oci://" + reg.Host() + "/tools/x:stable"
	os.WriteFile(cfg, []byte("[[plugin]]\npath = \""+src+"\"\n"), 0o600)
	if _, errOut, code := runCLI(t, "pull", "--config", cfg); code != 0 {
		t.Fatalf("pull: %s", errOut)
	}
	v2 := reg.PushWasm(t, "tools/x", "stable", fixture.Bytes(t, "constant"))

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
	reg.PushWasm(t, "tools/x", "stable", fixture.Bytes(t, "echo"))
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
	desc := reg.PushWasm(t, "plugins/echo", "1.0", fixture.Bytes(t, "echo"))
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

// TestServeSignedPlugins: with verify = "required" and a trusted key, a
// plugin signed with that key is served; an unsigned one and one signed
// with another key are not, each named with the reason, while the server
// keeps serving the first. pull and inspect show the signature state.
func TestServeSignedPlugins(t *testing.T) {
	isolate(t)
	reg := ocitest.New(t)
	trusted, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	echo := fixture.Bytes(t, "echo")
	sign := func(repo string, key *ecdsa.PrivateKey) string {
		desc := reg.PushWasm(t, repo, "1", echo)
		if key != nil {
			payload := ocitest.CosignPayload(reg.Host()+"/"+repo, desc.Digest)
			reg.SignCosign(t, repo, desc.Digest, payload, ocitest.Sign(t, key, payload))
		}
		return "oci://" + reg.Host() + "/" + repo + ":1"
	}
	good, unsigned, foreign := sign("t/good", trusted), sign("t/unsigned", nil), sign("t/foreign", stranger)

	dir := t.TempDir()
	pub := ocitest.WritePublicKey(t, trusted)
	if err := os.Rename(pub, filepath.Join(dir, "publisher.pub")); err != nil {
		t.Fatal(err)
	}
	cfg := fixture.Config(t, dir, `
[sources]
verify = "required"
keys = ["publisher.pub"]

[[plugin]]
path = "`+good+`"

[[plugin]]
path = "`+unsigned+`"

[[plugin]]
path = "`+foreign+`"
`)

	cs, stderr := stdioClient(t, "--config", cfg)
	if got := toolNames(t, cs, stderr); got != "good_echo" {
		t.Fatalf("tools = %s\nstderr:\n%s", got, stderr)
	}
	callTool(t, cs, "good_echo", stderr)
	cs.Close()
	log := stderr.String()
	if !strings.Contains(log, unsigned) || !strings.Contains(log, "unsigned") || !strings.Contains(log, `verify = \"required\"`) {
		t.Fatalf("unsigned plugin not reported:\n%s", log)
	}
	if !strings.Contains(log, foreign) || !strings.Contains(log, "does not verify with the key") {
		t.Fatalf("foreign signature not reported:\n%s", log)
	}

	// pull says which key verified it; validate fails on the other two.
	_, errOut, code := runCLI(t, "pull", "--config", cfg)
	if code != 1 || !strings.Contains(errOut, "signature: verified with key "+filepath.Join(dir, "publisher.pub")) || strings.Count(errOut, "failed  ") != 2 {
		t.Fatalf("pull: exit %d\n%s", code, errOut)
	}
	// Under if-signed, pull takes the unsigned one and says so, without
	// claiming it is served: pull serves nothing.
	_, errOut, code = runCLI(t, "pull", "--verify", "if-signed", "--key", filepath.Join(dir, "publisher.pub"), unsigned)
	if code != 0 || !strings.Contains(errOut, "signature: unsigned") || strings.Contains(errOut, "served") {
		t.Fatalf("pull if-signed: exit %d\n%s", code, errOut)
	}
	if _, errOut, code = runCLI(t, "validate", "--config", cfg); code == 0 || !strings.Contains(errOut, "t/foreign") {
		t.Fatalf("validate: exit %d\n%s", code, errOut)
	}

	// inspect oci:// shows digest, size, signature and tools, serving
	// nothing; with the flags' key and policy.
	out, errOut, code := runCLI(t, "inspect", "--verify", "required", "--key", filepath.Join(dir, "publisher.pub"), good)
	if code != 0 || !strings.Contains(out, "signature verified with") || !strings.Contains(out, "digest   sha256:") || !strings.Contains(out, "echo") {
		t.Fatalf("inspect: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, code = runCLI(t, "inspect", "--verify", "required", "--key", filepath.Join(dir, "publisher.pub"), unsigned); code == 0 || !strings.Contains(errOut, "unsigned") {
		t.Fatalf("inspect unsigned: exit %d\n%s", code, errOut)
	}
}

// TestVerifyFlagIsAFloor: `--verify required` on the command line holds
// for every plugin: a [[plugin]] with its own weaker verify is refused,
// naming it, not served unsigned; without the flag, the [[plugin]]'s own
// verify is an exception to [sources] (as documented).
func TestVerifyFlagIsAFloor(t *testing.T) {
	src, pub, cfg := unsignedEcho(t, "f/unsigned")
	os.WriteFile(cfg, []byte(`
[sources]
verify = "required"

[[plugin]]
path = "`+src+`"
verify = "off"
`), 0o600)
	_, errOut, code := runCLI(t, "validate", "--config", cfg, "--verify", "required", "--key", pub)
	if code == 0 || !strings.Contains(errOut, src) || !strings.Contains(errOut, `verify = "off" is weaker than --verify required`) {
		t.Fatalf("validate --verify required, [[plugin]] verify = off: code %d\n%s", code, errOut)
	}
	_, errOut, code = runCLI(t, "validate", "--config", cfg, "--key", pub)
	if code != 0 {
		t.Fatalf("without --verify, the plugin's own verify = off: code %d\n%s", code, errOut)
	}
}

// TestInspectKeepsPluginPolicy: inspect --config runs the plugin (to list
// its tools), so the [[plugin]] table's own verify = "required" holds
// there as under serve: an unsigned plugin is refused.
func TestInspectKeepsPluginPolicy(t *testing.T) {
	src, pub, cfg := unsignedEcho(t, "i/unsigned")
	os.WriteFile(cfg, []byte(`
[[plugin]]
path = "`+src+`"
verify = "required"
keys = ["`+pub+`"]
`), 0o600)
	if _, errOut, code := runCLI(t, "validate", "--config", cfg); code == 0 || !strings.Contains(errOut, "unsigned") {
		t.Fatalf("validate: code %d\n%s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "inspect", "--config", cfg, src); code == 0 || !strings.Contains(errOut, "unsigned") || !strings.Contains(errOut, src) {
		t.Fatalf("inspect --config: code %d\n%s", code, errOut)
	}
}

// TestReloadSignedRemote: a reload that makes a served registry plugin's
// verify "required" takes it out when it is unsigned, naming it, instead
// of leaving the version loaded before in service. The key is named from
// the start (under verify = "off"), so the confinement the server started
// with can read it at reload; the repository's name does not say
// "unsigned", so the log line that does is the refusal itself.
func TestReloadSignedRemote(t *testing.T) {
	src, pub, cfg := unsignedEcho(t, "r/plain")
	write := func(verify string) {
		os.WriteFile(cfg, []byte("[[plugin]]\nname = \"u\"\npath = \""+src+"\"\nverify = \""+verify+"\"\nkeys = [\""+pub+"\"]\n"), 0o600)
	}
	write("off")
	rs := startReload(t, nil, nil, "--config", cfg, "--watch=false")
	if got := rs.tools(); got != "u_echo" {
		t.Fatalf("tools at start = %q", got)
	}
	write("required")
	if err := rs.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	rs.waitLog(src, "unsigned: no cosign signature")
	rs.waitTools("")
	if strings.Contains(rs.stderr.String(), "permission denied") {
		t.Fatalf("the reload could not read something it needed:\n%s", rs.stderr)
	}
}

// unsignedEcho pushes the echo fixture, unsigned, to a fresh registry as
// repo:1 (the store and cache isolated), and gives its oci:// source, a
// public key file of an unrelated key, and a config path to write.
func unsignedEcho(t *testing.T, repo string) (src, pub, cfg string) {
	t.Helper()
	isolate(t)
	reg := ocitest.New(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	reg.PushWasm(t, repo, "1", fixture.Bytes(t, "echo"))
	return "oci://" + reg.Host() + "/" + repo + ":1", ocitest.WritePublicKey(t, key), filepath.Join(t.TempDir(), "mcpwasm.toml")
}
