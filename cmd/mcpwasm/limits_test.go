package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// Every size and duration flag out of range is refused with a message and
// exit code 2, through the real binary: --memory 8GiB used to panic at
// start, and --timeout 0, -1s and --memory 1KiB were silently changed.
func TestLimitFlagsValidated(t *testing.T) {
	echo := fixture.Path(t, "echo")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--memory", "8GiB"}, "--memory: 8GiB is out of range"},
		{[]string{"--memory", "1KiB"}, "--memory: 1KiB is out of range"},
		{[]string{"--memory", "0"}, "--memory: 0 bytes is out of range"},
		{[]string{"--timeout", "0"}, "--timeout: 0s is out of range"},
		{[]string{"--timeout", "-1s"}, "--timeout: -1s is out of range"},
		{[]string{"--max-output", "0"}, "--max-output: 0 bytes is out of range"},
		{[]string{"--concurrency", "-3"}, "--concurrency: -3 is out of range"},
		{[]string{"--memory-budget", "1KiB"}, "--memory-budget: 1KiB is too small"},
	} {
		for _, cmd := range []string{"call", "serve"} {
			args := append(append([]string{cmd, "--cache-dir", "off"}, c.flags...), echo)
			if cmd == "call" {
				args = append(args, "echo", "{}")
			}
			_, errs, code := runCLI(t, args...)
			if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "panic") {
				t.Errorf("%s %v: code %d, stderr %q; want 2 and %q", cmd, c.flags, code, errs, c.want)
			}
		}
	}
	// In range, at the edges: accepted.
	out, errs, code := runCLI(t, "call", "--cache-dir", "off", "--memory", "2MiB", "--timeout", "24h", "--max-output", "1KiB", echo, "echo", `{"text":"hi"}`)
	if code != 0 || !strings.Contains(out, "hi") {
		t.Fatalf("in-range flags: code %d\n%s\n%s", code, out, errs)
	}
}

// The config file's limits are checked alike, with the file and line.
func TestConfigLimitsValidated(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mcpwasm.toml")
	os.WriteFile(cfg, []byte("[[plugin]]\npath = \""+fixture.Path(t, "echo")+"\"\nmemory = \"8GiB\"\n"), 0o644)
	_, errs, code := runCLI(t, "serve", "--cache-dir", "off", "--config", cfg)
	if code != 2 || !strings.Contains(errs, cfg+": line 3:") || !strings.Contains(errs, "memory: 8GiB is out of range") {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
}
