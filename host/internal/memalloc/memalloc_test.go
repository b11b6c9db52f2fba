package memalloc

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"
)

const page = 64 << 10

func wantStats(t *testing.T, a *Allocator, live int, committed uint64) {
	t.Helper()
	if s := a.Stats(); s.Live != live || s.Committed != committed {
		t.Fatalf("stats: live %d committed %d, want live %d committed %d (%+v)",
			s.Live, s.Committed, live, committed, s)
	}
}

func nonZero(b []byte) int {
	n := 0
	for _, c := range b {
		if c != 0 {
			n++
		}
	}
	return n
}

// A memory written, freed and handed out again reads as zeros, and on
// Linux it really is the same reservation (so the test exercises reuse).
func TestReuseReadsZero(t *testing.T) {
	a := New(Options{MaxPooled: 4})
	for round := range 3 {
		m := a.Allocate(page, 16*page)
		buf := m.Reallocate(page)
		buf = m.Reallocate(8 * page) // grown within this lifetime
		for i := range buf {
			buf[i] = 0xA5
		}
		base := unsafe.SliceData(buf)
		m.Free()
		wantStats(t, a, 0, 0)

		// A different max of the same size class (16 pages) must get it.
		m2 := a.Allocate(page, 12*page)
		buf2 := m2.Reallocate(2 * page)
		if runtime.GOOS == "linux" && unsafe.SliceData(buf2) != base {
			t.Fatalf("round %d: freed reservation was not reused", round)
		}
		buf2 = m2.Reallocate(12 * page)
		if n := nonZero(buf2); n != 0 {
			t.Fatalf("round %d: reused memory has %d stale non-zero bytes", round, n)
		}
		m2.Free()
	}
	if s := a.Stats(); runtime.GOOS == "linux" && s.Pooled != 1 {
		t.Fatalf("pooled = %d, want 1", s.Pooled)
	}
	a.Trim()
	if s := a.Stats(); s.Pooled != 0 || s.Reserved != 0 {
		t.Fatalf("after Trim: %+v", s)
	}
}

// Growth is refused past the budget and allowed again once another memory
// frees; contents survive growth; a max is a max.
func TestBudget(t *testing.T) {
	a := New(Options{Budget: 4 * page, MaxPooled: 4})
	m1 := a.Allocate(page, 64*page)
	b1 := m1.Reallocate(page)
	b1[100] = 7
	if b1 = m1.Reallocate(3 * page); b1 == nil || b1[100] != 7 || len(b1) != 3*page {
		t.Fatalf("grow within budget: len %d", len(b1))
	}
	m2 := a.Allocate(page, 64*page)
	if m2.Reallocate(page) == nil {
		t.Fatal("initial size within budget refused")
	}
	wantStats(t, a, 2, 4*page)
	if b := m2.Reallocate(2 * page); b != nil {
		t.Fatal("growth past the budget was granted")
	}
	if b := m1.Reallocate(4 * page); b != nil {
		t.Fatal("growth past the budget was granted")
	}
	if s := a.Stats(); s.Refused != 2 || s.Committed != 4*page {
		t.Fatalf("after refusals: %+v", s)
	}

	m1.Free()
	m1.Free() // idempotent
	wantStats(t, a, 1, page)
	if b := m2.Reallocate(4 * page); b == nil {
		t.Fatal("growth refused after the budget was released")
	}
	if b := m2.Reallocate(65 * page); b != nil {
		t.Fatal("growth past max was granted")
	}

	// The initial size is granted even past the budget (see Allocator);
	// then nothing grows until memory is released.
	m3 := a.Allocate(2*page, 64*page)
	if b := m3.Reallocate(2 * page); len(b) != 2*page {
		t.Fatal("initial size refused")
	}
	wantStats(t, a, 2, 6*page)
	if m3.Reallocate(3*page) != nil {
		t.Fatal("growth granted while over budget")
	}
	m2.Free()
	m3.Free()
	wantStats(t, a, 0, 0)
	if m3.Reallocate(page) != nil {
		t.Fatal("Reallocate after Free returned memory")
	}
	wantStats(t, a, 0, 0)
}

// Many goroutines allocate, grow, write and free under a tight budget. Each
// memory must start zeroed and keep its own contents (no reservation handed
// to two live memories), the budget must hold at every step, and every
// byte must come back.
func TestConcurrent(t *testing.T) {
	const budget = 24 * page
	a := New(Options{Budget: budget, MaxPooled: 6})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tag := byte(g + 1)
			for i := range 150 {
				max := uint64(1+i%3) * 4 * page // three size classes
				m := a.Allocate(0, max)
				buf := m.Reallocate(0)
				for size := uint64(page); size <= max; size += page {
					nb := m.Reallocate(size)
					if nb == nil {
						break
					}
					if nonZero(nb[len(buf):]) != 0 {
						errs <- fmt.Errorf("g%d: new pages not zero", g)
						return
					}
					for j := len(buf); j < len(nb); j += 512 {
						nb[j] = tag
					}
					if s := a.Stats(); s.Committed > budget {
						errs <- fmt.Errorf("committed %d over budget", s.Committed)
						return
					}
					buf = nb
				}
				runtime.Gosched()
				for j := 0; j < len(buf); j += 512 {
					if buf[j] != tag {
						errs <- fmt.Errorf("g%d: byte %d is %d: memory shared with another", g, j, buf[j])
						return
					}
				}
				m.Free()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s := a.Stats()
	if s.Live != 0 || s.Committed != 0 || s.Pooled > 6 {
		t.Fatalf("after all frees: %+v", s)
	}
	if s.Refused == 0 {
		t.Fatal("the budget never refused: the test did not exercise it")
	}
	a.Trim()
}

// A memory wazero drops without Free (instantiation failed after the memory
// was built) is released by the GC cleanup.
func TestAbandonedMemoryIsReclaimed(t *testing.T) {
	a := New(Options{Budget: 8 * page, MaxPooled: 2})
	func() {
		m := a.Allocate(page, 4*page)
		b := m.Reallocate(3 * page)
		copy(b, "secret")
	}()
	// The cleanup ends the lease (Live) and then unmaps (Reserved) in two
	// steps: wait for both. A pooled reservation stays Reserved and fails.
	deadline := time.Now().Add(5 * time.Second)
	for s := a.Stats(); s.Live != 0 || s.Committed != 0 || s.Pooled != 0 || s.Reserved != 0; s = a.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("abandoned memory: %+v, want it released and unmapped, not pooled", s)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// A memory with max 0 (a module declaring (memory 0 0)) works.
func TestZeroMax(t *testing.T) {
	a := New(Options{MaxPooled: 1})
	m := a.Allocate(0, 0)
	if b := m.Reallocate(0); b == nil || len(b) != 0 {
		t.Fatalf("Reallocate(0) = %v", b)
	}
	if m.Reallocate(1) != nil {
		t.Fatal("grew past max 0")
	}
	m.Free()
	wantStats(t, a, 0, 0)
}

// Without mmap (or when it fails) memories are heap slices, which keep
// contents across growth and obey the same budget.
func TestHeapFallback(t *testing.T) {
	a := New(Options{Budget: 3 * page})
	m := a.Allocate(page, 8*page)
	l := m.(*linearMemory).l
	if l.r != nil {
		a.unmap(l.r)
		l.r = nil
	}
	b := m.Reallocate(page)
	copy(b, "keep")
	b = m.Reallocate(3 * page)
	if !bytes.HasPrefix(b, []byte("keep")) || nonZero(b[4:]) != 0 {
		t.Fatal("heap growth lost or dirtied contents")
	}
	if m.Reallocate(4*page) != nil {
		t.Fatal("heap growth past budget granted")
	}
	m.Free()
	wantStats(t, a, 0, 0)
}
