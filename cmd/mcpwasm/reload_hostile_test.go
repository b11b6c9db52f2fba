package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestReloadHostileFolder: a watched folder flooded with files written
// quickly is loaded in a few coalesced reloads, not one per file (the
// client is told of the change a few times, not a hundred); a symlink
// swapped to point at another module serves that module; a plugin file
// replaced by a directory is withdrawn while the rest keeps serving.
func TestReloadHostileFolder(t *testing.T) {
	dir := t.TempDir()
	fixture.Copy(t, "echo", filepath.Join(dir, "echo.wasm"))
	// --trust off: a plugin swapped for one declaring other tools (the
	// symlink below) is what this test reloads; under the default trust
	// it would be held until approved (TestTrustReloadE2E).
	rs := startReload(t, nil, nil, dir, "--trust", "off")
	if got := rs.tools(); got != "echo_echo" {
		t.Fatalf("tools at start = %q", got)
	}
	rs.drainChanged()

	// The flood: 100 plugins written as fast as the disk takes them.
	const flood = 100
	data, err := os.ReadFile(filepath.Join(dir, "echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < flood; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.wasm", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rs.eventually(fmt.Sprintf("%d tools after the flood", flood+1), func() bool {
		return strings.Count(rs.tools(), ",")+1 == flood+1
	})
	rs.call("f099_echo")
	// Let any straggling notification arrive, then count them. One per
	// file (uncoalesced) would fill the channel (capacity 100).
	time.Sleep(time.Second)
	n := len(rs.changed)
	t.Logf("%d files -> %d list_changed notifications", flood, n)
	// A reload round loads its new versions first and swaps them in
	// together, so go-sdk folds the round into one notice per list; on a
	// loaded machine the writes may span a few debounce windows (1–3
	// notices at load average 10; 15–57 when each plugin was swapped in as
	// it loaded). One per file would be 100.
	if n == 0 || n > flood/10 {
		t.Fatalf("%d list_changed notifications for %d files: want coalesced reloads", n, flood)
	}
	for i := 0; i < flood; i++ {
		os.Remove(filepath.Join(dir, fmt.Sprintf("f%03d.wasm", i)))
	}
	rs.waitTools("echo_echo")

	// A symlink swapped to point elsewhere, atomically (rename over it).
	// The targets are below the watched folder (not served: folders are
	// not searched): under the confinement, a link out of the folder's
	// rules needs a restart (TestReloadUnderConfinement).
	other := filepath.Join(dir, "elsewhere")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	fixture.Copy(t, "echo", filepath.Join(other, "a.wasm"))
	fixture.Copy(t, "constant", filepath.Join(other, "b.wasm"))
	link := filepath.Join(dir, "link.wasm")
	if err := os.Symlink(filepath.Join(other, "a.wasm"), link); err != nil {
		t.Fatal(err)
	}
	rs.waitTools("echo_echo,link_echo")
	tmp := filepath.Join(dir, "link.tmp")
	if err := os.Symlink(filepath.Join(other, "b.wasm"), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	rs.waitTools("echo_echo,link_a,link_b")
	if _, out := rs.call("link_a"); !strings.Contains(out, `"constant"`) {
		t.Fatalf("link_a after the swap: %s", out)
	}

	// A plugin file replaced by a directory of the same name.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(link, 0o755); err != nil {
		t.Fatal(err)
	}
	rs.eventually("link_* withdrawn after link.wasm became a directory", func() bool {
		return !strings.Contains(rs.tools(), "link_")
	})
	if res, out := rs.call("echo_echo"); res.IsError {
		t.Fatalf("echo after the hostile changes: %s", out)
	}
}
