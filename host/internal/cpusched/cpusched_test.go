package cpusched

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func acquire(t *testing.T, s *Scheduler, group string) *Turn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	turn, err := s.Acquire(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

// acquireAsync starts an Acquire and returns a channel that yields the turn
// once granted.
func acquireAsync(s *Scheduler, group string) chan *Turn {
	ch := make(chan *Turn, 1)
	go func() {
		turn, err := s.Acquire(context.Background(), group)
		if err == nil {
			ch <- turn
		}
	}()
	return ch
}

// yieldAsync starts a Yield and returns a channel that yields its result
// once the turn holds a slot again.
func yieldAsync(turn *Turn) chan error {
	ch := make(chan error, 1)
	go func() { ch <- turn.Yield(context.Background()) }()
	return ch
}

// waitQueued waits until n calls wait.
func waitQueued(t *testing.T, s *Scheduler, fresh, resumed int) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if st := s.Stats(); st.WaitingFresh == fresh && st.WaitingResumed == resumed {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("want %d fresh and %d resumed waiters, have %+v", fresh, resumed, s.Stats())
}

// No more than Slots turns ever hold a slot at once, however many compete
// and yield.
func TestSlotsBound(t *testing.T) {
	s := New(Options{Slots: 3, Quantum: time.Microsecond})
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for g := 0; g < 20; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			turn := acquire(t, s, string(rune('a'+g%4)))
			for i := 0; i < 50; i++ {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				running.Add(-1)
				if err := turn.Yield(context.Background()); err != nil {
					t.Error(err)
				}
			}
			turn.Release()
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 3 {
		t.Fatalf("%d turns ran at once with 3 slots", p)
	}
	if st := s.Stats(); st.Running != 0 || st.WaitingFresh+st.WaitingResumed != 0 {
		t.Fatalf("slots leaked: %+v", st)
	}
}

// A long-running call yields at once to a call that has not run yet, and
// gets the slot back when that call ends.
func TestFreshCallGoesFirst(t *testing.T) {
	s := New(Options{Slots: 1, Quantum: time.Hour})
	long := acquire(t, s, "spin")
	if err := long.Yield(context.Background()); err != nil || !long.held {
		t.Fatal("yielded with no one waiting")
	}
	short := acquireAsync(s, "echo")
	waitQueued(t, s, 1, 0)
	yielded := yieldAsync(long)
	turn := <-short
	waitQueued(t, s, 0, 1)
	turn.Release()
	if err := <-yielded; err != nil || !long.held {
		t.Fatalf("the long call did not get its slot back: %v", err)
	}
	long.Release()
}

// Calls that already ran take turns by quantum.
func TestQuantumAmongResumed(t *testing.T) {
	s := New(Options{Slots: 1, Quantum: 20 * time.Millisecond})
	a := acquire(t, s, "a")
	b := acquireAsync(s, "b")
	waitQueued(t, s, 1, 0)
	aBack := yieldAsync(a) // gives way to the fresh call b
	tb := <-b
	waitQueued(t, s, 0, 1)
	if err := tb.Yield(context.Background()); err != nil || !tb.held {
		t.Fatal("b yielded to a resumed call before its quantum")
	}
	time.Sleep(25 * time.Millisecond)
	bBack := yieldAsync(tb)
	if err := <-aBack; err != nil {
		t.Fatal(err)
	}
	waitQueued(t, s, 0, 1) // b now waits, a runs
	a.Release()
	if err := <-bBack; err != nil {
		t.Fatal(err)
	}
	tb.Release()
}

// A plugin holding more than its share yields to another plugin's waiting
// call even before its quantum, and the waiting call of the plugin under
// its share is served first.
func TestShare(t *testing.T) {
	s := New(Options{Slots: 2, Share: 1, Quantum: time.Hour})
	x1, x2 := acquire(t, s, "x"), acquire(t, s, "x")
	y := acquireAsync(s, "y")
	waitQueued(t, s, 1, 0)
	x1Back := yieldAsync(x1)
	ty := <-y
	waitQueued(t, s, 0, 1)
	s.mu.Lock()
	held := [2]int{s.held["x"], s.held["y"]}
	s.mu.Unlock()
	if held != [2]int{1, 1} {
		t.Fatalf("held x, y: %v", held)
	}
	// x2 is at its share now, and no one of another group waits.
	if err := x2.Yield(context.Background()); err != nil || !x2.held {
		t.Fatal("x2 yielded although only its own group waits")
	}
	ty.Release()
	if err := <-x1Back; err != nil {
		t.Fatal(err)
	}
	x1.Release()
	x2.Release()
}

// A call whose context ends while it waits gets an error and leaves no
// slot taken or promised.
func TestCancelWhileWaiting(t *testing.T) {
	s := New(Options{Slots: 1})
	a := acquire(t, s, "a")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Acquire(ctx, "b"); err == nil {
		t.Fatal("acquired a taken slot")
	}
	a.Release()
	if st := s.Stats(); st.Running != 0 || st.WaitingFresh != 0 {
		t.Fatalf("after a cancelled wait: %+v", st)
	}
	acquire(t, s, "c").Release()
}

// Pause frees the slot for others; Resume takes one again.
func TestPauseResume(t *testing.T) {
	s := New(Options{Slots: 1})
	a := acquire(t, s, "a")
	a.Pause()
	b := acquire(t, s, "b")
	resumed := make(chan error, 1)
	go func() { resumed <- a.Resume(context.Background()) }()
	waitQueued(t, s, 1, 0)
	b.Release()
	if err := <-resumed; err != nil || !a.held {
		t.Fatal(err)
	}
	a.Release()
}
