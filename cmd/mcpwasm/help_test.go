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
