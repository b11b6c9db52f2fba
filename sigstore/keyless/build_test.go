package keyless

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildScript builds mcpwasm with ../build.sh and checks that the
// binary has the keyless verifier: it reads a keyless policy's trusted root
// (and rejects this malformed one) where the default binary refuses the
// policy as "not in this binary".
func TestBuildScript(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: links a whole mcpwasm binary; not with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpwasm")
	if out, err := exec.Command("../build.sh", bin).CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "root.json"), []byte(`{"mediaType": "nope"}`), 0o644)
	cfg := filepath.Join(dir, "mcpwasm.toml")
	os.WriteFile(cfg, []byte(`[[plugin]]
path = "oci://127.0.0.1:1/x:1"
verify = "required"
identity = "a@example.com"
issuer = "https://accounts.google.com"
trusted_root = "root.json"
`), 0o644)
	out, _ := exec.Command(bin, "validate", "--config", cfg).CombinedOutput()
	if strings.Contains(string(out), "not in this binary") || !strings.Contains(string(out), "trusted root") {
		t.Fatalf("validate with a keyless policy:\n%s", out)
	}
}
