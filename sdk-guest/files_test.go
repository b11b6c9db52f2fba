package sdkguest

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite sdk-guest/_go from sdk-guest/go (go generate does)")

// TestGoCopyMatches fails when sdk-guest/_go, the embedded copy of the Go
// SDK, differs from sdk-guest/go: run go generate ./sdk-guest. With
// -update (what go generate runs) it first rewrites _go from sdk-guest/go,
// so the rule below is the one definition of the copy: the module's Go
// sources without tests and examples, its README, and go.mod stored as
// go.mod.txt (a go.mod would make the copy a module of its own).
func TestGoCopyMatches(t *testing.T) {
	want := map[string][]byte{}
	err := fs.WalkDir(os.DirFS("go"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == "example" || p == "examples" {
				return fs.SkipDir
			}
			return nil
		}
		name := path.Base(p)
		if !(strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") || name == "README.md" || name == "go.mod") {
			return nil
		}
		b, err := os.ReadFile("go/" + p)
		if name == "go.mod" {
			p += ".txt"
		}
		want[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.RemoveAll("_go"); err != nil {
			t.Fatal(err)
		}
		for p, b := range want {
			dst := filepath.Join("_go", filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("rewrote sdk-guest/_go: %d files", len(want))
	}
	copied := Go() // what the binary embeds
	if *update {
		copied = os.DirFS("_go") // embedded before the rewrite
	}
	got := map[string][]byte{}
	err = fs.WalkDir(copied, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got[p], err = fs.ReadFile(copied, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("sdk-guest/_go lacks %s: run go generate ./sdk-guest", p)
		} else if !bytes.Equal(g, b) {
			t.Errorf("sdk-guest/_go/%s differs from sdk-guest/go: run go generate ./sdk-guest", p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("sdk-guest/_go/%s is not in sdk-guest/go any more: run go generate ./sdk-guest", p)
		}
	}
	if len(want) < 3 {
		t.Fatalf("found only %d files in sdk-guest/go", len(want))
	}
}

// TestEmbeddedSDKs checks each SDK has its manifest at the root, the file a
// copied folder is built from.
func TestEmbeddedSDKs(t *testing.T) {
	for name, c := range map[string]struct {
		f    fs.FS
		file string
	}{"rust": {Rust(), "Cargo.toml"}, "assemblyscript": {AssemblyScript(), "package.json"}, "go": {Go(), "go.mod.txt"}} {
		if _, err := fs.Stat(c.f, c.file); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := fs.Stat(Rust(), "target"); err == nil {
		t.Error("the Rust SDK's build output (target/) is embedded")
	}
}
