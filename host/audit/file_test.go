package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileReopen: after the file is moved away, Reopen creates it again at
// its path and later lines go there; the moved file keeps the lines written
// before. A path that cannot be opened leaves the old file in use.
func TestFileReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := New(f, false)
	l.Record(Event{Kind: KindCall, Tool: "before"})
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := f.Reopen(); err != nil {
		t.Fatal(err)
	}
	l.Record(Event{Kind: KindCall, Tool: "after"})
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if old, cur := read(path+".1"), read(path); !strings.Contains(old, `"before"`) || strings.Contains(old, `"after"`) ||
		!strings.Contains(cur, `"after"`) || strings.Contains(cur, `"before"`) {
		t.Fatalf("rotated file:\n%s\nnew file:\n%s", old, cur)
	}
	// The folder is gone: Reopen fails and the open file stays in use.
	if err := os.Rename(dir, dir+".gone"); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(dir+".gone", dir)
	if err := f.Reopen(); err == nil {
		t.Fatal("Reopen into a missing folder: no error")
	}
	l.Record(Event{Kind: KindCall, Tool: "still"})
	if cur := read(filepath.Join(dir+".gone", "audit.log")); !strings.Contains(cur, `"still"`) {
		t.Fatalf("after a failed Reopen the line was lost:\n%s", cur)
	}
}
