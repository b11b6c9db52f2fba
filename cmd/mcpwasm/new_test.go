package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestNewBuildCall does what a new user does, for every language: mcpwasm new
// LANG demo, ./build.sh, the native tests the README names, then mcpwasm call
// and inspect on the module (its tool and its example skill). It needs the guest toolchains
// (scripts/install-toolchains.sh; the AssemblyScript build installs its
// compiler from npm).
func TestNewBuildCall(t *testing.T) {
	fixture.Slow(t, "builds a plugin in each guest language")
	for _, c := range []struct {
		lang  string
		test  []string                // the native test command the README gives
		needs func(testing.TB) string // finds the toolchain build.sh uses
	}{
		{"rust", []string{"/usr/bin/cargo", "test", "--offline", "--quiet"}, func(t testing.TB) string { return fixture.Tool(t, "/usr/bin/cargo") }},
		{"go", []string{"go", "test", "."}, func(t testing.TB) string { return fixture.Tool(t, "go") }},
		{"tinygo", []string{"go", "test", "."}, fixture.TinyGo},
		{"as", []string{"npm", "test", "--silent"}, func(t testing.TB) string { return fixture.Tool(t, "npm") }},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			c.needs(t)
			dir := filepath.Join(t.TempDir(), "demo")
			out, errs, code := runCLI(t, "new", c.lang, dir)
			if code != 0 || !strings.Contains(out, "./build.sh") {
				t.Fatalf("new %s: code %d\n%s%s", c.lang, code, out, errs)
			}
			if out := sh(t, dir, "./build.sh"); strings.Contains(strings.ToLower(out), "warning") {
				t.Errorf("a fresh %s plugin's first build warns:\n%s", c.lang, out)
			}
			sh(t, dir, c.test...)
			wasm := filepath.Join(dir, "demo.wasm")
			cache := "--cache-dir=" + t.TempDir()
			out, errs, code = runCLI(t, "call", cache, wasm, "hello", `{"name":"Ada"}`)
			if code != 0 || !strings.Contains(out, `"text": "Hello, Ada!"`) {
				t.Fatalf("call hello Ada: code %d\n%s%s", code, out, errs)
			}
			out, errs, code = runCLI(t, "call", cache, wasm, "hello", `{}`)
			if code != 1 || !strings.Contains(out, `"isError": true`) {
				t.Fatalf("call hello without a name: code %d, want 1 and an isError result\n%s%s", code, out, errs)
			}
			out, errs, code = runCLI(t, "inspect", cache, wasm)
			if code != 0 || !strings.Contains(out, "ABI v1") || !strings.Contains(out, "hello — Greets someone by name") ||
				!strings.Contains(out, "skill://greeting/SKILL.md — Greet people") {
				t.Fatalf("inspect: code %d\n%s%s", code, out, errs)
			}
		})
	}
}

// sh runs a command in dir and returns its output, failing the test with
// that output if the command fails.
func sh(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RUSTC=/usr/bin/rustc", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in %s: %v\n%s\n(the guest toolchains come from scripts/install-toolchains.sh)", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// TestNewRefuses: a bad language, a bad name or a folder that holds files is
// refused, and nothing in an existing folder is touched.
func TestNewRefuses(t *testing.T) {
	dir := t.TempDir()
	_, errs, code := runCLI(t, "new", "cobol", filepath.Join(dir, "x"))
	if code != 2 || !strings.Contains(errs, `unknown language "cobol"`) || !strings.Contains(errs, "rust|go|tinygo|as") {
		t.Errorf("unknown language: code %d, %s", code, errs)
	}
	_, errs, code = runCLI(t, "new", "rust", filepath.Join(dir, "Bad Name"))
	if code != 1 || !strings.Contains(errs, `"Bad Name" is not a valid plugin name`) {
		t.Errorf("bad name: code %d, %s", code, errs)
	}
	taken := filepath.Join(dir, "taken")
	if err := os.MkdirAll(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(taken, "build.sh"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code = runCLI(t, "new", "go", taken)
	if code != 1 || !strings.Contains(errs, "already exists and is not empty") {
		t.Errorf("existing folder: code %d, %s", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(taken, "build.sh")); string(b) != "mine" {
		t.Errorf("an existing file was overwritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(taken, "main.go")); err == nil {
		t.Error("files were written into a folder that was not empty")
	}
	// An empty folder is fine: "mkdir demo && mcpwasm new go demo".
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if _, errs, code = runCLI(t, "new", "go", empty); code != 0 {
		t.Errorf("empty folder: code %d, %s", code, errs)
	}
}

// TestNewSaysArticle: `new` names the language with the right article
// ("an AssemblyScript plugin", "a Rust plugin"); it printed "a
// AssemblyScript". Writing the folder needs no toolchain.
func TestNewSaysArticle(t *testing.T) {
	for lang, want := range map[string]string{"as": "an AssemblyScript plugin", "rust": "a Rust plugin", "go": "a Go plugin", "tinygo": "a TinyGo plugin"} {
		out, errs, code := runCLI(t, "new", lang, filepath.Join(t.TempDir(), "demo"))
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("new %s: code %d, want %q in\n%s%s", lang, code, want, out, errs)
		}
	}
}
