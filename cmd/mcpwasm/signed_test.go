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

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/ocitest"
)

// TestServeSignedPlugins: with verify = "required" and a trusted key, a
// plugin signed with that key is served; an unsigned one and one signed
// with another key are not, each named with the reason, while the server
// keeps serving the first. pull and inspect show the signature state.
func TestServeSignedPlugins(t *testing.T) {
	isolate(t)
	reg := ocitest.New(t)
	trusted, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	echo := readFixture(t, "echo")
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
	reg.PushWasm(t, repo, "1", readFixture(t, "echo"))
	return "oci://" + reg.Host() + "/" + repo + ":1", ocitest.WritePublicKey(t, key), filepath.Join(t.TempDir(), "mcpwasm.toml")
}
