package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProblemsAllAtOnce: a config's problems are reported together, each
// naming the file and its own line: values out of range (concurrency = 0,
// refused as --concurrency 0 is; max_sessions = -5), a bad sha256, a
// [[plugin]] without a path, a bad value in a second [[plugin]]. Before,
// only the first was reported, and the sha256, max_sessions and missing
// path named no line; concurrency = 0 passed.
func TestProblemsAllAtOnce(t *testing.T) {
	text := `[server]
max_sessions = -5

[defaults]
concurrency = 0

[[plugin]]
path = "a.wasm"
sha256 = "abc"

[[plugin]]
name = "b"
memory = "lots"

[[plugin]]
path = "c.wasm"
concurrency = 0
timeout = "-1s"
`
	path := filepath.Join(t.TempDir(), "mcpwasm.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("Load = %v, want an *Error", err)
	}
	want := []string{
		path + `: line 2: [server] max_sessions: -5 is out of range`,
		path + `: line 5: [defaults]: concurrency: 0 is out of range`,
		path + `: line 9: [[plugin]] #1: sha256 must be 64 hex digits`,
		path + `: line 11: [[plugin]] "b": path is required`,
		path + `: line 13: [[plugin]] "b": memory: invalid size "lots"`,
		path + `: line 17: [[plugin]] #3: concurrency: 0 is out of range`,
		path + `: line 18: [[plugin]] #3: timeout: -1s is out of range`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(lines), len(want), err)
	}
	for _, w := range want {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, w)
		}
		if !found {
			t.Errorf("no problem %q in:\n%s", w, err)
		}
	}
	for _, p := range ce.Problems {
		if p.Line < 1 {
			t.Errorf("a problem without a line: %v", p.Err)
		}
	}
}

// TestSyntaxErrorLine: a TOML syntax error is reported on its own line
// (the decoder put an unclosed [[plugin] of line 3 on line 4).
func TestSyntaxErrorLine(t *testing.T) {
	for in, want := range map[string]string{
		"[server]\nname = \"x\"\n[[plugin]\n[defaults]\n":     "line 3: ",
		"[server]\nname = \"x\"\nhttp = \n[defaults]\n":       "line 3: ",
		"[server]\nname = \"x\"\nhttp = \"abc\n\n":            "line 3: ",
		"[server]\nmax_sessions = 5\nmax_sessions = 6\n":      "line 3: ",
		"[server]\nname = \"x\"\nhttp = 127.0.0.1:80\n\n":     "line 3: ",
		"[server\nname = \"x\"\n":                             "line 1: ",
		"# a comment\n\n[defaults]\ntimeout = \"5s\" x = 1\n": "line 4: ",
	} {
		_, err := Parse([]byte(in))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Parse(%q) = %v; want %q...", in, err, want)
		}
	}
}

// TestFlagAndKeyChecksAgree: a flag and its config key share one check:
// the values --concurrency, --max-sessions and --session-timeout refuse
// are refused as concurrency, max_sessions and session_timeout too.
func TestFlagAndKeyChecksAgree(t *testing.T) {
	for _, c := range []struct {
		key   string
		check func() error // the flag's check on the same value
	}{
		{"[defaults]\nconcurrency = 0\n", func() error { return CheckConcurrency(0) }},
		{"[defaults]\nconcurrency = 2000\n", func() error { return CheckConcurrency(2000) }},
		{"[server]\nmax_sessions = 0\n", func() error { return CheckMaxSessions(0) }},
		{"[server]\nsession_timeout = \"0s\"\n", func() error { return CheckSessionTimeout(0) }},
		{"[defaults]\ntimeout = \"25h\"\n", func() error { return CheckTimeout(25 * time.Hour) }},
	} {
		flagErr := c.check()
		_, keyErr := Parse([]byte(c.key))
		if flagErr == nil || keyErr == nil || !strings.Contains(keyErr.Error(), flagErr.Error()) {
			t.Errorf("%q: the flag's check says %v, the key's %v", c.key, flagErr, keyErr)
		}
	}
	for _, ok := range []string{"[defaults]\nconcurrency = 1\n", "[server]\nmax_sessions = 1\n", "[server]\nsession_timeout = \"1s\"\n"} {
		if _, err := Parse([]byte(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// TestLocator: the line of a key, by its path with [[array]] entries
// counted per parent, a dotted key, a quoted key, and a key inside a
// multi-line string that is not one.
func TestLocator(t *testing.T) {
	loc := locate([]byte(`[[plugin]]
path = "a"
[[plugin.net]]
hosts = ["x"]
[[plugin]]
path = "b"
[plugin.config]
note = """
fake = 1
"""
"quoted.key" = 2
[[plugin.net]]
ports = [1]
server.name = "n"
`))
	for _, c := range []struct {
		path []any
		want int
	}{
		{[]any{"plugin", 0, "path"}, 2},
		{[]any{"plugin", 0, "net", 0, "hosts"}, 4},
		{[]any{"plugin", 1, "path"}, 6},
		{[]any{"plugin", 1, "config", "note"}, 8},
		{[]any{"plugin", 1, "config", "fake"}, 7}, // not a key: its table
		{[]any{"plugin", 1, "config", "quoted.key"}, 11},
		{[]any{"plugin", 1, "net", 0, "ports"}, 13},
		{[]any{"plugin", 1, "net", 0, "server", "name"}, 14},
		{[]any{"plugin", 1, "missing"}, 5},
	} {
		if got := loc.line(c.path...); got != c.want {
			t.Errorf("line(%v) = %d, want %d", c.path, got, c.want)
		}
	}
}

// wantRefused checks that Parse refuses each text with an error that
// contains the text's message.
func wantRefused(t *testing.T, cases map[string]string) {
	t.Helper()
	for text, want := range cases {
		if _, err := Parse([]byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error containing %q", text, err, want)
		}
	}
}
