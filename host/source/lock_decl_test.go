package source

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLockDecls: the lock file's "decl" lines (host/trust's approved
// declarations) live beside the pins: setting a pin keeps them, setting
// one plugin's lines keeps the pins and the other plugins' lines, another
// Lock on the file sees them, and a dry-run Lock writes nothing.
func TestLockDecls(t *testing.T) {
	path := filepath.Join(t.TempDir(), LockName)
	l, err := OpenLock(path)
	if err != nil {
		t.Fatal(err)
	}
	d := "sha256:" + strings.Repeat("a", 64)
	if err := l.Set("oci://r.example/a:1", d); err != nil {
		t.Fatal(err)
	}
	a := []string{"decl a tool a_x sha256:" + strings.Repeat("1", 64) + " name=0123456789abcdef"}
	b := []string{"decl b prompt b_y sha256:" + strings.Repeat("2", 64) + " name=0123456789abcdef"}
	if err := l.SetDecls("a", a); err != nil {
		t.Fatal(err)
	}
	if err := l.SetDecls("b", b); err != nil {
		t.Fatal(err)
	}
	if err := l.Set("oci://r.example/b:1", d); err != nil {
		t.Fatal(err)
	}
	other, err := OpenLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := other.Decls(); !reflect.DeepEqual(got, append(append([]string{}, a...), b...)) {
		t.Fatalf("decls %q", got)
	}
	if len(other.Pins()) != 2 {
		t.Fatalf("pins %v", other.Pins())
	}
	a2 := []string{strings.Replace(a[0], "1", "3", 1)}
	if err := other.SetDecls("a", a2); err != nil {
		t.Fatal(err)
	}
	if got := l.Decls(); !reflect.DeepEqual(got, append(append([]string{}, a2...), b...)) {
		t.Fatalf("after another process's change: %q", got)
	}
	before, _ := os.ReadFile(path)
	dry, _ := OpenLock(path)
	dry.DryRun()
	dry.SetDecls("c", []string{"decl c tool c_z sha256:" + strings.Repeat("4", 64)})
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("dry run wrote the file")
	}
	if len(dry.Decls()) != 3 {
		t.Fatalf("dry run lost its lines: %q", dry.Decls())
	}
}
