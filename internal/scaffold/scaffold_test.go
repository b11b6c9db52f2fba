package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteEveryLang writes each language's folder and checks the files a
// build needs are there, executable where they must be, and fully rendered.
// (cmd/mcpwasm's TestNewBuildCall builds and calls them.)
func TestWriteEveryLang(t *testing.T) {
	manifest := map[string]string{"rust": "Cargo.toml", "go": "go.mod", "tinygo": "go.mod", "as": "package.json"}
	for _, l := range Langs {
		dir := filepath.Join(t.TempDir(), "my-tool")
		files, err := Write(l, dir)
		if err != nil {
			t.Fatalf("%s: %v", l.Name, err)
		}
		for _, want := range []string{"build.sh", "README.md", ".gitignore", "skills/greeting/SKILL.md", l.source, manifest[l.Name], "mcpwasm-sdk/" + manifest[l.Name]} {
			if !contains(files, want) {
				t.Errorf("%s: no %s in %v", l.Name, want, files)
			}
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(f, "mcpwasm-sdk/") && (strings.Contains(string(b), "{{") || strings.Contains(string(b), "<no value>")) {
				t.Errorf("%s: %s is not fully rendered:\n%s", l.Name, f, b)
			}
		}
		if st, err := os.Stat(filepath.Join(dir, "build.sh")); err != nil || st.Mode()&0o100 == 0 {
			t.Errorf("%s: build.sh is not executable (%v)", l.Name, err)
		}
		readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
		if !strings.Contains(string(readme), "mcpwasm call my-tool.wasm hello") {
			t.Errorf("%s: README does not show how to call the module:\n%s", l.Name, readme)
		}
	}
}

// TestRustArtifactName: Cargo names the module after the crate with '-'
// turned into '_'; build.sh must copy that file.
func TestRustArtifactName(t *testing.T) {
	lang, _ := FindLang("rust")
	dir := filepath.Join(t.TempDir(), "my-tool")
	if _, err := Write(lang, dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "build.sh"))
	if !strings.Contains(string(b), `release/my_tool.wasm" my-tool.wasm`) {
		t.Errorf("build.sh copies the wrong artifact:\n%s", b)
	}
}

func TestFindLang(t *testing.T) {
	for in, want := range map[string]string{"rust": "rust", "TinyGo": "tinygo", "assemblyscript": "as", "as": "as"} {
		if l, ok := FindLang(in); !ok || l.Name != want {
			t.Errorf("FindLang(%q) = %q, %v", in, l.Name, ok)
		}
	}
	if _, ok := FindLang("cobol"); ok {
		t.Error("FindLang(cobol) succeeded")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
