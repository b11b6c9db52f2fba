package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestHelpNamesNoIssues: the help a user reads describes the command, not
// the project's history; no issue or pull-request number appears in it.
func TestHelpNamesNoIssues(t *testing.T) {
	ref := regexp.MustCompile(`(?i)\bissue\b|\bPR\b|#[0-9]+`)
	for _, args := range [][]string{{"-h"}, {"serve", "-h"}, {"call", "-h"}, {"inspect", "-h"},
		{"validate", "-h"}, {"pull", "-h"}, {"new", "-h"}, {"policy", "test", "-h"}, {"policy", "schema", "-h"}, {"policy"}} {
		out, errOut, _ := runCLI(t, args...)
		if m := ref.FindString(out + errOut); m != "" {
			t.Errorf("mcpwasm %v mentions %q:\n%s%s", args, m, out, errOut)
		}
	}
}

// TestFlagsDocumented: the flags table of docs/config.md lists every flag
// `serve -h` prints, and no flag serve no longer has.
func TestFlagsDocumented(t *testing.T) {
	_, errOut, _ := runCLI(t, "serve", "-h")
	have := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(errOut, -1) {
		have[m[1]] = true
	}
	if len(have) < 20 {
		t.Fatalf("serve -h listed %d flags:\n%s", len(have), errOut)
	}
	doc, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	_, flags, ok := strings.Cut(string(doc), "\n## Flags\n")
	if !ok {
		t.Fatal("docs/config.md has no '## Flags' section")
	}
	flags, _, _ = strings.Cut(flags, "\n## ")
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `--([a-z0-9-]+)").FindAllStringSubmatch(flags, -1) {
		documented[m[1]] = true
	}
	for f := range have {
		if !documented[f] {
			t.Errorf("serve --%s is not in docs/config.md's flags table", f)
		}
	}
	for f := range documented {
		if !have[f] {
			t.Errorf("docs/config.md documents --%s, which serve does not have", f)
		}
	}
}

// TestSubcommandUsage: each subcommand's -h prints its usage line(s) first,
// then its flags (newFlags), and the commands that load plugins as serve
// does take serve's --no-prefix and --load-timeout (loadFlags).
func TestSubcommandUsage(t *testing.T) {
	for _, c := range []struct {
		args  []string
		usage string
		flags []string
	}{
		{[]string{"serve"}, "usage: mcpwasm serve [flags]", []string{"-http", "-cache-dir", "-key"}},
		{[]string{"call"}, "usage: mcpwasm call [flags]", []string{"-root", "-cache-dir", "-key"}},
		{[]string{"validate"}, "usage: mcpwasm validate [--config FILE]", []string{"-confine", "-no-prefix", "-load-timeout", "-cache-dir"}},
		{[]string{"pull"}, "usage: mcpwasm pull [--config FILE]", []string{"-update", "-key"}},
		{[]string{"trust"}, "usage: mcpwasm trust [--diff]", []string{"-diff", "-no-prefix", "-load-timeout", "-cache-dir"}},
		{[]string{"policy", "test"}, "usage: mcpwasm policy test [--config FILE | --policy FILE...] --principal NAME (--tool T | --prompt P | --resource URI) [--args JSON] [flags] [PLUGIN.wasm | DIR]...\nDecides one request", []string{"-principal", "-no-prefix", "-load-timeout"}},
		{[]string{"policy", "schema"}, "usage: mcpwasm policy schema [--config FILE] [flags] [PLUGIN.wasm | DIR]...\nPrints the Cedar schema", []string{"-no-prefix", "-load-timeout", "-key"}},
	} {
		_, errOut, _ := runCLI(t, append(c.args, "-h")...)
		if !strings.HasPrefix(errOut, c.usage) {
			t.Errorf("mcpwasm %v -h does not start with %q:\n%s", c.args, c.usage, errOut)
		}
		for _, f := range c.flags {
			if !strings.Contains(errOut, "\n  "+f+" ") && !strings.Contains(errOut, "\n  "+f+"\n") {
				t.Errorf("mcpwasm %v -h does not list %s:\n%s", c.args, f, errOut)
			}
		}
	}
}

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

// TestConfigKeyAndFlagAgree: `concurrency = 0` passed validate with exit 0
// while `--concurrency 0` was refused; --max-sessions and --session-timeout
// out of range were silently taken as their defaults. Now the key and the
// flag share one check, and validate reports every problem of a config at
// once, each with the file and its line.
func TestConfigKeyAndFlagAgree(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return fixture.File(t, dir, name, text) }
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

// TestConfigOrArgs: trust and validate need a config or plugin arguments;
// with neither they say there is nothing to do (exit 2), and a config that
// does not load is named with the command (exit 1).
func TestConfigOrArgs(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.toml")
	for _, cmd := range []string{"trust", "validate"} {
		if _, errs, code := runCLI(t, cmd, "--cache-dir", "off"); code != 2 || !strings.HasPrefix(errs, "mcpwasm "+cmd+": nothing to ") {
			t.Errorf("%s with nothing: code %d, stderr %q; want 2 and nothing to do", cmd, code, errs)
		}
		if _, errs, code := runCLI(t, cmd, "--cache-dir", "off", "--config", missing); code != 1 || !strings.HasPrefix(errs, "mcpwasm "+cmd+": ") || !strings.Contains(errs, "missing.toml") {
			t.Errorf("%s --config missing: code %d, stderr %q; want 1 and the file", cmd, code, errs)
		}
	}
}
