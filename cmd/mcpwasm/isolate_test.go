package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestValidateConfineIsolated: with isolation = "process", validate
// --confine shows the plugin's worker policy and makes the same attempts
// in a worker confined to it, each refused by its wall.
func TestValidateConfineIsolated(t *testing.T) {
	dir := t.TempDir()
	fixture.Copy(t, "echo", filepath.Join(dir, "echo.wasm"))
	cfg := filepath.Join(dir, "mcpwasm.toml")
	if err := os.WriteFile(cfg, []byte("[[plugin]]\npath = \"echo.wasm\"\nisolation = \"process\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "validate", "--confine", "--cache-dir", t.TempDir(), "--config", cfg)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.String()
	if err != nil {
		t.Fatalf("validate --confine: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	for _, re := range []string{
		`(?m)^worker echo: read-write \S+wazero-isolated/[0-9a-f]{16}; no TCP; no exec`,
		`(?m)^worker echo confined: no_new_privs,landlock-fs,landlock-tcp,landlock-scoped,seccomp$`,
		`(?m)^worker echo: refused  read \S+: .*permission denied \(Landlock\)$`,
		`(?m)^worker echo: refused  write into ` + regexp.QuoteMeta(dir) + `: .*permission denied \(Landlock\)$`,
		`(?m)^worker echo: refused  exec \S+: .*operation not permitted \(seccomp\)$`,
		`(?m)^worker echo: refused  ptrace child \d+: operation not permitted \(seccomp\)$`,
		`(?m)^worker echo: refused  connect tcp 127\.0\.0\.1:\d+: .*permission denied \(Landlock\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no line matching %s\nstdout:\n%s\nstderr:\n%s", re, out, stderr.String())
		}
	}
	if strings.Contains(out, "FAILED") {
		t.Errorf("an attempt was not refused:\n%s", out)
	}
}
