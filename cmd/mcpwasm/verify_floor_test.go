package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/ocitest"
)

// TestVerifyFlagIsAFloor: `--verify required` on the command line holds
// for every plugin: a [[plugin]] with its own weaker verify is refused,
// naming it, not served unsigned; without the flag, the [[plugin]]'s own
// verify is an exception to [sources] (as documented).
func TestVerifyFlagIsAFloor(t *testing.T) {
	isolate(t)
	reg := ocitest.New(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	reg.PushWasm(t, "f/unsigned", "1", readFixture(t, "echo"))
	src := "oci://" + reg.Host() + "/f/unsigned:1"
	dir := t.TempDir()
	pub := ocitest.WritePublicKey(t, key)
	cfg := filepath.Join(dir, "mcpwasm.toml")
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
	isolate(t)
	reg := ocitest.New(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	reg.PushWasm(t, "i/unsigned", "1", readFixture(t, "echo"))
	src := "oci://" + reg.Host() + "/i/unsigned:1"
	dir := t.TempDir()
	pub := ocitest.WritePublicKey(t, key)
	cfg := filepath.Join(dir, "mcpwasm.toml")
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
	isolate(t)
	reg := ocitest.New(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	reg.PushWasm(t, "r/plain", "1", readFixture(t, "echo"))
	src := "oci://" + reg.Host() + "/r/plain:1"
	dir := t.TempDir()
	pub := ocitest.WritePublicKey(t, key)
	cfg := filepath.Join(dir, "mcpwasm.toml")
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
