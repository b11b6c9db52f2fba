package plugin

import (
	"context"
	"sync"

	"github.com/tetratelabs/wazero/experimental"

	"github.com/mcpwasm/mcpwasm/host/internal/memalloc"
)

// capWriter keeps the first max bytes written to it and counts the rest. It
// backs a guest's stdout and stderr, so a guest that floods them costs the
// host a bounded buffer and never reaches the process's own stdout.
type capWriter struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped int
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	room := w.max - len(w.buf)
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		w.buf = append(w.buf, p[:room]...)
	}
	w.dropped += len(p) - room
	return len(p), nil
}

func (w *capWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

// memWatch wraps the process's memory allocator for one instance and notes
// whether any linear memory reached its limit, which is how a trap after a
// failed memory.grow is told apart from any other trap.
type memWatch struct {
	inner   experimental.MemoryAllocator
	limit   uint64
	mu      sync.Mutex
	atLimit bool
	refused bool
	total   uint64 // the sizes of the memories together, now
	peak    uint64 // and at their largest
}

// peakBytes is the largest the call's linear memories were together.
func (m *memWatch) peakBytes() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}

func (m *memWatch) Allocate(capacity, max uint64) experimental.LinearMemory {
	if max > m.limit {
		max = m.limit
	}
	var lm experimental.LinearMemory
	if m.inner != nil {
		lm = m.inner.Allocate(capacity, max)
	} else {
		lm = &heapMemory{max: max}
	}
	return &watchedMemory{LinearMemory: lm, w: m, max: max}
}

func (m *memWatch) hitLimit() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.atLimit || m.refused
}

type watchedMemory struct {
	experimental.LinearMemory
	w       *memWatch
	max     uint64
	started bool   // the first Reallocate is the initial size, not a grow
	size    uint64 // the size last granted
}

func (wm *watchedMemory) Reallocate(size uint64) []byte {
	b := wm.LinearMemory.Reallocate(size)
	grow := wm.started
	wm.started = true
	if b != nil && size > wm.size {
		wm.w.mu.Lock()
		wm.w.total += size - wm.size
		wm.w.peak = max(wm.w.peak, wm.w.total)
		wm.w.mu.Unlock()
		wm.size = size
	}
	if b == nil || (grow && size+pageSize > wm.max) {
		wm.w.mu.Lock()
		if b == nil {
			wm.w.refused = true
		} else {
			wm.w.atLimit = true
		}
		wm.w.mu.Unlock()
	}
	return b
}

// heapMemory is a plain Go-heap linear memory, used when the runtime has no
// allocator of its own.
type heapMemory struct {
	buf []byte
	max uint64
}

func (h *heapMemory) Reallocate(size uint64) []byte {
	if size > h.max {
		return nil
	}
	h.buf = memalloc.Grow(h.buf, size, 0, h.max)
	return h.buf
}

func (h *heapMemory) Free() { h.buf = nil }

// exitWatch records whether a module closed itself during a call, which is
// how proc_exit(0) — reported by the runtime as plain success — is caught.
type exitWatch struct {
	mu     sync.Mutex
	closed bool
	code   uint32
	armed  bool
}

func (e *exitWatch) CloseNotify(_ context.Context, code uint32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.armed && !e.closed {
		e.closed, e.code = true, code
	}
}

func (e *exitWatch) arm(on bool) {
	e.mu.Lock()
	e.armed = on
	e.mu.Unlock()
}

func (e *exitWatch) result() (bool, uint32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed, e.code
}
