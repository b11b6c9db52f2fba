package sdkguest

import (
	"archive/zip"
	"bytes"
	"flag"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rebuild sdk-guest/go.zip from sdk-guest/go (go generate does)")

// TestGoArchiveMatches fails when sdk-guest/go.zip, the embedded archive of
// the Go SDK, differs from sdk-guest/go: run go generate ./sdk-guest. With
// -update (what go generate runs) it first rebuilds the archive from
// sdk-guest/go, so the rule below is the one definition of what goes in:
// the module's Go sources without tests and examples, its README, and
// go.mod stored as go.mod.txt (the name the copier renames). The archive is
// the same bytes for the same sources (sorted, no times), so rebuilding it
// changes nothing in git unless the SDK changed.
func TestGoArchiveMatches(t *testing.T) {
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
	var copied fs.FS
	if !*update {
		copied = Go() // what the binary embeds
	} else {
		b, err := archive(want)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("go.zip", b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rebuilt sdk-guest/go.zip: %d files, %d bytes", len(want), len(b))
		if copied, err = zip.NewReader(bytes.NewReader(b), int64(len(b))); err != nil {
			t.Fatal(err)
		}
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
			t.Errorf("sdk-guest/go.zip lacks %s: run go generate ./sdk-guest", p)
		} else if !bytes.Equal(g, b) {
			t.Errorf("%s in sdk-guest/go.zip differs from sdk-guest/go: run go generate ./sdk-guest", p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s in sdk-guest/go.zip is not in sdk-guest/go any more: run go generate ./sdk-guest", p)
		}
	}
	if len(want) < 3 {
		t.Fatalf("found only %d files in sdk-guest/go", len(want))
	}
}

// archive zips files (by slash path) in name order, with no times, so the
// same files give the same bytes.
func archive(files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		f, err := w.CreateHeader(&zip.FileHeader{Name: p, Method: zip.Deflate})
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(files[p]); err != nil {
			return nil, err
		}
	}
	err := w.Close()
	return buf.Bytes(), err
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
