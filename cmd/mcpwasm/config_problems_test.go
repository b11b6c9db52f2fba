package main

import (
	"strings"
	"testing"
)

// TestConfigKeyAndFlagAgree: `concurrency = 0` passed validate with exit 0
// while `--concurrency 0` was refused; --max-sessions and --session-timeout
// out of range were silently taken as their defaults. Now the key and the
// flag share one check, and validate reports every problem of a config at
// once, each with the file and its line.
func TestConfigKeyAndFlagAgree(t *testing.T) {
	write := fileWriter(t, t.TempDir())
	cfg := write("bad.toml", "[server]\nmax_sessions = -5\n\n[defaults]\nconcurrency = 0\n\n[[plugin]]\npath = \"missing.wasm\"\nsha256 = \"abc\"\n")
	_, errOut, code := runCLI(t, "validate", "--config", cfg)
	if code == 0 {
		t.Fatalf("validate: exit 0 for a config with problems\n%s", errOut)
	}
	for _, w := range []string{cfg + ": line 2: [server] max_sessions", cfg + ": line 5: [defaults]: concurrency: 0 is out of range",
		cfg + ": line 9: [[plugin]] #1: sha256"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("validate: no %q in\n%s", w, errOut)
		}
	}
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--concurrency", "0"}, "--concurrency: 0 is out of range"},
		{[]string{"--max-sessions", "-5"}, "--max-sessions: -5 is out of range"},
		{[]string{"--max-sessions", "0"}, "--max-sessions: 0 is out of range"},
		{[]string{"--session-timeout", "-1s"}, "--session-timeout: -1s is out of range"},
	} {
		_, errs, code := runCLI(t, append(append([]string{"serve", "--cache-dir", "off"}, c.flags...), "nothing.wasm")...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("serve %v: code %d, stderr %q; want 2 and %q", c.flags, code, errs, c.want)
		}
	}
}
