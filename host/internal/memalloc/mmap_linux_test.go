//go:build linux

package memalloc

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// procKB reads a "Name:   123 kB" line from a /proc file.
func procKB(t *testing.T, file, name string) int64 {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Skipf("no %s: %v", file, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			n, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skipf("no %s in %s", name, file)
	return 0
}

// 4 GiB reservations (what wazero asks for when nothing limits a memory)
// cost address space only: 64 of them live at once must not raise the
// system's commit charge by anything like 256 GiB.
func TestLargeReservationsCommitNothing(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("a 4 GiB reservation does not fit a 32-bit address space")
	}
	a := New(Options{MaxPooled: 64})
	before := procKB(t, "/proc/meminfo", "Committed_AS")
	var ms []interface{ Free() }
	for range 64 {
		m := a.Allocate(page, 4<<30)
		b := m.Reallocate(page)
		b[page-1] = 1
		ms = append(ms, m)
	}
	after := procKB(t, "/proc/meminfo", "Committed_AS")
	if s := a.Stats(); s.Reserved != 64*(4<<30) || s.Committed != 64*page {
		t.Fatalf("stats: %+v", s)
	}
	// Each memory made one page writable; allow other processes' noise.
	if grew := after - before; grew > 1<<20 { // KiB: 1 GiB
		t.Fatalf("Committed_AS grew by %d MiB for 64 x 4 GiB reservations", grew>>10)
	}
	for _, m := range ms {
		m.Free()
	}
	a.Trim()
	if s := a.Stats(); s.Reserved != 0 || s.Live != 0 {
		t.Fatalf("after free and trim: %+v", s)
	}
}

// Free gives the used pages back to the kernel even though the
// reservation stays pooled.
func TestFreeReturnsPages(t *testing.T) {
	a := New(Options{MaxPooled: 1})
	m := a.Allocate(page, 1024*page)
	b := m.Reallocate(1024 * page) // 64 MiB
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	touched := procKB(t, "/proc/self/status", "RssAnon")
	m.Free()
	freed := procKB(t, "/proc/self/status", "RssAnon")
	if a.Stats().Pooled != 1 {
		t.Fatal("reservation not pooled")
	}
	if drop := touched - freed; drop < 48<<10 { // KiB
		t.Fatalf("RssAnon fell by %d KiB after freeing 64 MiB, want >= 48 MiB", drop)
	}
	a.Trim()
}
