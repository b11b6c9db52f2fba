package memalloc

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Initial sizes are charged through a Reservation before instantiation, so
// the budget can refuse them; memories built from it draw their initial
// size from it rather than charging it again.
func TestReserve(t *testing.T) {
	for _, heap := range []bool{false, true} {
		a := New(Options{Budget: 10 * page, MaxPooled: 4, Heap: heap})
		if _, err := a.Reserve(context.Background(), 11*page); !errors.Is(err, ErrOverBudget) {
			t.Fatalf("heap=%v: reserve past the whole budget: %v", heap, err)
		}
		r, err := a.Reserve(context.Background(), 6*page)
		if err != nil {
			t.Fatal(err)
		}
		wantStats(t, a, 0, 6*page)

		m := r.Allocate(page, 8*page)
		if b := m.Reallocate(4 * page); len(b) != 4*page {
			t.Fatalf("heap=%v: initial size: %d bytes", heap, len(b))
		}
		wantStats(t, a, 1, 6*page) // drawn from the reservation
		if s := a.Stats(); heap && s.Reserved != 0 {
			t.Fatalf("heap=%v: mmap'd %d bytes", heap, s.Reserved)
		}

		// No room for a second: it waits, and gives up with its context.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		if _, err := a.Reserve(ctx, 6*page); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("heap=%v: reserve with no room: %v", heap, err)
		}
		cancel()

		// A waiting reservation gets its room when the first is done: 7
		// pages fit only once the memory (4 pages, still charged after the
		// reservation's release) is freed too.
		got := make(chan error, 1)
		go func() {
			r2, err := a.Reserve(context.Background(), 7*page)
			if err == nil {
				r2.Release()
			}
			got <- err
		}()
		r.Release()
		wantStats(t, a, 1, 4*page) // the memory stays charged
		m.Free()
		select {
		case err := <-got:
			if err != nil {
				t.Fatalf("heap=%v: waiting reserve: %v", heap, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("heap=%v: a waiting reserve never got the freed room", heap)
		}
		wantStats(t, a, 0, 0)
		r.Release() // twice: nothing
		wantStats(t, a, 0, 0)
	}
}

// A memory whose initial size exceeds what its reservation holds is still
// granted (wazero cannot take a refusal there) and charged the difference.
func TestReserveShortfallIsCharged(t *testing.T) {
	a := New(Options{Budget: 10 * page})
	r, err := a.Reserve(context.Background(), 2*page)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Allocate(page, 8*page)
	if b := m.Reallocate(3 * page); b == nil {
		t.Fatal("initial size refused")
	}
	wantStats(t, a, 1, 3*page)
	r.Release()
	m.Free()
	wantStats(t, a, 0, 0)
}
