package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
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
