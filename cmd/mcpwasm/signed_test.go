package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	cfg := filepath.Join(dir, "mcpwasm.toml")
	os.WriteFile(cfg, []byte(`
[sources]
verify = "required"
keys = ["publisher.pub"]

[[plugin]]
path = "`+good+`"

[[plugin]]
path = "`+unsigned+`"

[[plugin]]
path = "`+foreign+`"
`), 0o600)

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
