package main

import (
	"regexp"
	"testing"
)

// TestHelpNamesNoIssues: the help a user reads describes the command, not
// the project's history; no issue or pull-request number appears in it.
func TestHelpNamesNoIssues(t *testing.T) {
	ref := regexp.MustCompile(`(?i)\bissue\b|\bPR\b|#[0-9]+`)
	for _, args := range [][]string{{"-h"}, {"serve", "-h"}, {"call", "-h"}, {"inspect", "-h"},
		{"validate", "-h"}, {"pull", "-h"}, {"new", "-h"}, {"bench", "-h"}} {
		out, errOut, _ := runCLI(t, args...)
		if m := ref.FindString(out + errOut); m != "" {
			t.Errorf("mcpwasm %v mentions %q:\n%s%s", args, m, out, errOut)
		}
	}
}
