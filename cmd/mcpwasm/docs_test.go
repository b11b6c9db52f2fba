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

// docFiles are the README and docs/*.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixture.Root(), "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs: %v", err)
	}
	return append(files, filepath.Join(fixture.Root(), "README.md"))
}

var fence = regexp.MustCompile("(?ms)^```(\\w*)\\n(.*?)^```")

// TestDocShellBlocks: every shell block of the docs parses in the shell its
// fence names: a ```sh block with dash (POSIX sh, Debian's /bin/sh), a
// ```bash block with bash. The curl recipe was marked sh and used bash
// arrays.
func TestDocShellBlocks(t *testing.T) {
	shells := map[string]string{"sh": "dash", "bash": "bash"}
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fence.FindAllStringSubmatch(string(data), -1) {
			shell := shells[m[1]]
			if shell == "" {
				continue
			}
			path, err := exec.LookPath(shell)
			if err != nil {
				fixture.Missing(t, "%s, to check the ```%s blocks", shell, m[1])
			}
			cmd := exec.Command(path, "-n")
			cmd.Stdin = strings.NewReader(m[2])
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: a ```%s block does not parse with %s: %v\n%s\n%s", filepath.Base(f), m[1], shell, err, out, m[2])
			}
		}
	}
}

var (
	sentenceEnd = regexp.MustCompile(`[.!?:;]\s|\n\n|\n[-*|#]`)
	word        = regexp.MustCompile(`^[a-z][a-z'-]*$`)
)

// TestDocRepeats: no sentence of the docs (prose, outside code and link
// targets) says the same prepositional phrase twice ("At start the log
// says ... at start"), and no word is doubled ("the the").
func TestDocRepeats(t *testing.T) {
	preps := map[string]bool{}
	for _, w := range strings.Fields("at on by in for from with to after before until") {
		preps[w] = true
	}
	small := map[string]bool{}
	for _, w := range strings.Fields("a an the of to in on at for and or is are be by it its as with from that this not no one each any every all most least") {
		small[w] = true
	}
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prose := fence.ReplaceAllString(string(data), "\n\n")
		prose = regexp.MustCompile(`\]\([^)]*\)`).ReplaceAllString(prose, "]")
		prose = regexp.MustCompile("`[^`]*`").ReplaceAllString(prose, " CODE ")
		for _, s := range sentenceEnd.Split(prose, -1) {
			words := strings.Fields(strings.ToLower(s))
			seen := map[string]bool{}
			for i := 0; i+1 < len(words); i++ {
				if words[i] == words[i+1] && word.MatchString(words[i]) && words[i] != "code" {
					t.Errorf("%s: %q doubled in %q", filepath.Base(f), words[i], strings.Join(strings.Fields(s), " "))
				}
				if !preps[words[i]] || small[words[i+1]] || words[i+1] == "code" || !word.MatchString(words[i+1]) {
					continue
				}
				p := words[i] + " " + words[i+1]
				if seen[p] {
					t.Errorf("%s: %q twice in one sentence: %q", filepath.Base(f), p, strings.Join(strings.Fields(s), " "))
				}
				seen[p] = true
			}
		}
	}
}
