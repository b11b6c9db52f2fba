package plugin

import "sync"

// Machine code is built through one queue per Runtime (RATIONALE.md,
// "First calls"). Before it, builds took turns on a mutex, in no
// particular order: a call to a small plugin could wait behind every
// standard-Go plugin's build (about a second each). The queue keeps them
// in order:
//
//   - a build a call waits for is urgent: it goes before every background
//     build, urgent builds in the order calls asked for them;
//   - background builds (CompileIfCold) go smallest module first, so the
//     most plugins are ready soonest;
//   - one build runs at a time, but an urgent build may start beside a
//     background one (which leaves a core to the server, Plugin.build): a
//     call never waits for a background build it did not ask for;
//   - two builds of the same module bytes never run at once: wazero v1.12.0,
//     reading a module from the file cache, publishes it to its in-memory
//     cache before filling in its entry preambles, so a concurrent build of
//     the same bytes (one file in two [[plugin]] tables) could call into it
//     half-built (a data race -race caught in TestConcurrentLoadsWithFileCache).
type buildQueue struct {
	mu      sync.Mutex
	waiting []*buildTicket
	running []*buildTicket
	seq     uint64
	hook    func(plugin string, urgent bool, beside int) // tests: told as each build starts, with how many run beside it
	held    bool                                         // tests: no build starts
}

// buildTicket is one plugin's place in the queue.
type buildTicket struct {
	key    string // the module's digest: builds of one key never overlap
	size   int    // the module's size: background builds go smallest first
	name   string // the plugin's, for the build hook
	urgent bool   // a call waits for it
	// allCores says the build may compile on every core: a call waits for
	// it with nothing else to do.
	allCores bool
	order    uint64 // when it was queued, or made urgent
	turn     chan struct{}
	queued   bool // waiting in the queue (not yet started)
	// cancelled says the plugin closed before its build started: the
	// build is not run (set before turn closes).
	cancelled bool
}

// enqueue adds t and starts it if it may run now.
func (q *buildQueue) enqueue(t *buildTicket) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.seq++
	t.order, t.turn, t.queued = q.seq, make(chan struct{}), true
	q.waiting = append(q.waiting, t)
	q.dispatch()
}

// promote makes t urgent if it is still waiting: a call needs it now.
// allCores says the call waits for it with nothing else to do, so the
// build may take every core; a call running in the interpreter meanwhile
// (tier.go) leaves it one.
func (q *buildQueue) promote(t *buildTicket, allCores bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !t.queued {
		return
	}
	t.allCores = t.allCores || allCores
	if t.urgent {
		return
	}
	q.seq++
	t.urgent, t.order = true, q.seq
	q.dispatch()
}

// usesAllCores reports whether t, started, may compile on every core.
func (q *buildQueue) usesAllCores(t *buildTicket) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return t.allCores
}

// cancel takes t off the queue if it has not started; its turn comes at
// once, cancelled.
func (q *buildQueue) cancel(t *buildTicket) {
	if t == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if !t.queued {
		return
	}
	for i, w := range q.waiting {
		if w == t {
			q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
			break
		}
	}
	t.queued, t.cancelled = false, true
	close(t.turn)
}

// done takes t, which ran, off the queue and starts what may run next.
func (q *buildQueue) done(t *buildTicket) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, r := range q.running {
		if r == t {
			q.running = append(q.running[:i], q.running[i+1:]...)
			break
		}
	}
	q.dispatch()
}

// dispatch starts every waiting build that may run, best first. q.mu is
// held.
func (q *buildQueue) dispatch() {
	for !q.held {
		best := -1
		for i, t := range q.waiting {
			if q.mayRun(t) && (best < 0 || before(t, q.waiting[best])) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		t := q.waiting[best]
		q.waiting = append(q.waiting[:best], q.waiting[best+1:]...)
		t.queued = false
		q.running = append(q.running, t)
		if q.hook != nil {
			q.hook(t.name, t.urgent, len(q.running)-1)
		}
		close(t.turn)
	}
}

// mayRun reports whether t may start beside the builds running now: a
// background build only when nothing runs, an urgent one beside a
// background build of other bytes.
func (q *buildQueue) mayRun(t *buildTicket) bool {
	if !t.urgent {
		return len(q.running) == 0
	}
	for _, r := range q.running {
		if r.key == t.key || r.urgent {
			return false
		}
	}
	return true
}

// before orders two waiting builds: urgent ones first, in the order they
// became urgent; then the smaller module; then the earlier.
func before(a, b *buildTicket) bool {
	if a.urgent != b.urgent {
		return a.urgent
	}
	if !a.urgent && a.size != b.size {
		return a.size < b.size
	}
	return a.order < b.order
}
