package sandboxfs

import (
	"os"
	"path/filepath"
	"testing"
)

// OpenDir's handle is the folder it opened, whatever the path names later;
// a mount built from it serves that folder, with no lookup by path.
func TestOpenDirHandleSurvivesSwap(t *testing.T) {
	base, err := Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, other := filepath.Join(base, "d"), filepath.Join(base, "other")
	for _, d := range []string{dir, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "who"), []byte(filepath.Base(d)), 0o644)
	}
	link := filepath.Join(base, "link")
	os.Symlink(dir, link)
	r, canon, err := OpenDir(link)
	if err != nil || canon != dir {
		t.Fatalf("OpenDir(link) = %q, %v; want %q", canon, err, dir)
	}
	os.Rename(dir, dir+".old")
	os.Rename(other, dir)
	if b, err := r.ReadFile("who"); err != nil || string(b) != "d" {
		t.Fatalf("after the swap the handle reads %q, %v", b, err)
	}
	_, closer, err := FSConfig([]Mount{{HostPath: dir, ReadOnly: true, Root: r}})
	if err != nil {
		t.Fatal(err)
	}
	closer.Close()
	if _, err := r.Stat("."); err == nil {
		t.Error("FSConfig's closer left the handle it was given open")
	}
	if _, _, err := OpenDir(filepath.Join(base, "missing")); err == nil {
		t.Error("OpenDir of a missing folder succeeded")
	}
}
