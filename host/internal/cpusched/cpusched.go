// Package cpusched shares the machine's cores among running guests.
//
// Guest code cannot be preempted by Go's scheduler while it runs native
// code, so without a scheduler of its own the host would let as many guests
// compute as there are calls, and a few spinning guests would take every
// core from the protocol and from short calls. A Scheduler hands out a fixed
// number of slots (by default one core fewer than GOMAXPROCS, so the
// protocol always has one). A guest holds a slot while it computes; at each
// of its interruption points (about every millisecond) it gives the slot
// up if someone waits for it, and it gives it up around host calls that
// block (sleep, requests to the client).
//
// The policy (RATIONALE.md, "Sharing the CPU"):
//   - calls that have not run yet (or come back from a blocking host call)
//     go before calls that gave up their slot, so a short call waits at
//     most one interruption interval behind a long one;
//   - a running call yields at once to a waiting fresh call, and to a call
//     that gave up its slot once it has held its own for a quantum;
//   - a group (a plugin) holding more than its share of the slots yields to
//     waiters of other groups first, and waiters of groups under their share
//     are served first, so one plugin's calls cannot take every slot while
//     another's wait;
//   - waiters of the same rank are served first come, first served.
package cpusched

import (
	"context"
	"sync"
	"time"
)

// Options configures a Scheduler.
type Options struct {
	// Slots is how many guests may compute at once. At least 1.
	Slots int
	// Share is how many slots one group may hold while another group's
	// calls wait. Default: half the slots, rounded up.
	Share int
	// Quantum is how long a call keeps its slot when only calls that
	// already ran are waiting. Default 10ms.
	Quantum time.Duration
}

// Scheduler hands out CPU slots. The zero value is not usable; use New.
type Scheduler struct {
	mu      sync.Mutex
	opts    Options
	free    int
	held    map[string]int // slots held, by group
	fresh   []*waiter      // calls yet to run, or back from blocking
	resumed []*waiter      // calls that gave up their slot
}

type waiter struct {
	group   string
	granted chan struct{} // closed when the slot is handed over
}

// New returns a Scheduler.
func New(opts Options) *Scheduler {
	opts.Slots = max(opts.Slots, 1)
	if opts.Share <= 0 {
		opts.Share = (opts.Slots + 1) / 2
	}
	if opts.Quantum <= 0 {
		opts.Quantum = 10 * time.Millisecond
	}
	return &Scheduler{opts: opts, free: opts.Slots, held: map[string]int{}}
}

// Slots is the number of guests that may compute at once.
func (s *Scheduler) Slots() int { return s.opts.Slots }

// Turn is one call's claim on the CPU. Its methods are not safe for
// concurrent use: a call runs on one goroutine.
type Turn struct {
	s     *Scheduler
	group string
	held  bool
	since time.Time     // when the slot was last granted
	used  time.Duration // how long the slot was held before since
}

// Used reports how long the turn has held a CPU slot in all: the guest's
// CPU time, host calls that did not pause it included.
func (t *Turn) Used() time.Duration {
	if t.held {
		return t.used + time.Since(t.since)
	}
	return t.used
}

// Acquire waits for a slot for a call of group. It fails only when ctx ends
// first.
func (s *Scheduler) Acquire(ctx context.Context, group string) (*Turn, error) {
	t := &Turn{s: s, group: group}
	if err := t.wait(ctx, false); err != nil {
		return nil, err
	}
	return t, nil
}

// wait takes a free slot at once if no one of higher rank waits, or queues.
func (t *Turn) wait(ctx context.Context, resumed bool) error {
	s := t.s
	s.mu.Lock()
	if s.free > 0 && len(s.fresh) == 0 && (resumed || len(s.resumed) == 0) {
		s.grantLocked(t.group)
		s.mu.Unlock()
		t.held, t.since = true, time.Now()
		return nil
	}
	w := &waiter{group: t.group, granted: make(chan struct{})}
	if resumed {
		s.resumed = append(s.resumed, w)
	} else {
		s.fresh = append(s.fresh, w)
	}
	s.mu.Unlock()
	select {
	case <-w.granted:
		t.held, t.since = true, time.Now()
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		if s.removeLocked(w) {
			s.mu.Unlock()
			return ctx.Err()
		}
		s.mu.Unlock()
		// Granted while giving up: hand the slot on.
		t.held, t.since = true, time.Now()
		t.Release()
		return ctx.Err()
	}
}

// Yield gives the slot to a waiting call if the policy says so, and waits
// to get one back. It fails only when ctx ends while waiting; the turn then
// holds no slot.
func (t *Turn) Yield(ctx context.Context) error {
	if !t.held {
		return nil
	}
	s := t.s
	s.mu.Lock()
	if !s.shouldYieldLocked(t) {
		s.mu.Unlock()
		return nil
	}
	s.releaseLocked(t.group)
	s.mu.Unlock()
	t.held = false
	t.used += time.Since(t.since)
	return t.wait(ctx, true)
}

func (s *Scheduler) shouldYieldLocked(t *Turn) bool {
	if len(s.fresh) > 0 {
		return true
	}
	if len(s.resumed) == 0 {
		return false
	}
	if s.held[t.group] > s.opts.Share {
		for _, w := range s.resumed {
			if w.group != t.group {
				return true
			}
		}
	}
	return time.Since(t.since) >= s.opts.Quantum
}

// Release gives the slot back for good (the call ended).
func (t *Turn) Release() {
	if !t.held {
		return
	}
	t.held = false
	t.used += time.Since(t.since)
	t.s.mu.Lock()
	t.s.releaseLocked(t.group)
	t.s.mu.Unlock()
}

// Pause gives the slot up around a host call that blocks; Resume waits for
// one again, ahead of calls that yielded.
func (t *Turn) Pause() { t.Release() }

// Resume takes a slot again after Pause. It fails only when ctx ends first.
func (t *Turn) Resume(ctx context.Context) error {
	if t.held {
		return nil
	}
	return t.wait(ctx, false)
}

func (s *Scheduler) grantLocked(group string) {
	s.free--
	s.held[group]++
}

// releaseLocked frees group's slot and hands it to the next waiter: fresh
// before resumed, groups under their share before others, then in order.
func (s *Scheduler) releaseLocked(group string) {
	s.free++
	if s.held[group]--; s.held[group] <= 0 {
		delete(s.held, group)
	}
	for s.free > 0 {
		q := &s.fresh
		if len(*q) == 0 {
			q = &s.resumed
		}
		if len(*q) == 0 {
			return
		}
		i := 0
		for j, w := range *q {
			if s.held[w.group] < s.opts.Share {
				i = j
				break
			}
		}
		w := (*q)[i]
		*q = append((*q)[:i], (*q)[i+1:]...)
		s.grantLocked(w.group)
		close(w.granted)
	}
}

// removeLocked takes w out of its queue; false if it was already granted.
func (s *Scheduler) removeLocked(w *waiter) bool {
	for _, q := range []*[]*waiter{&s.fresh, &s.resumed} {
		for i, x := range *q {
			if x == w {
				*q = append((*q)[:i], (*q)[i+1:]...)
				return true
			}
		}
	}
	return false
}

// Stats is a snapshot of the scheduler.
type Stats struct {
	Running, WaitingFresh, WaitingResumed int
}

// Stats reports the calls computing and waiting.
func (s *Scheduler) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Running: s.opts.Slots - s.free, WaitingFresh: len(s.fresh), WaitingResumed: len(s.resumed)}
}
