// Package memalloc backs wazero linear memories with reusable mmap'd
// reservations instead of Go heap slices, under one process-wide budget.
//
// Extism builds a fresh kernel memory (16 pages, 1 MiB) and a fresh guest
// memory for every instance. On the Go heap each of them is allocated,
// zeroed and later scanned and swept by the GC. Here a memory is a
// reservation of address space (mmap PROT_NONE, MAP_NORESERVE) whose prefix
// is made readable and writable as the memory grows; Free hands the used
// pages back to the kernel with madvise(MADV_DONTNEED), so a reused
// reservation reads as zeros, and keeps the reservation for the next memory
// of the same size class.
//
// Use it through wazero's context hook:
//
//	a := memalloc.New(memalloc.Options{Budget: 1 << 30, MaxPooled: 256})
//	ctx = experimental.WithMemoryAllocator(ctx, a)
//	inst, err := compiled.Instance(ctx, cfg) // kernel and guest memories come from a
//
// Two rules follow from memory that is not owned by the GC:
//   - A memory must not be read or written after its module is closed. Free
//     may hand the same addresses to another instance at once. Extism copies
//     outputs and error strings out before it returns them; code that keeps
//     an api.Memory view must do the same, and must not close an instance
//     while another goroutine is still calling into it (cancel its context
//     instead: wazero then frees the memory on the calling goroutine).
//   - The budget refuses growth; it can refuse instantiation only ahead of
//     it, through Reserve. See Allocator.
//
// On Linux the reservations are mmap'd. Elsewhere, and wherever mmap fails,
// memories are plain heap slices with the same budget accounting.
package memalloc

import (
	"context"
	"errors"
	"math/bits"
	"runtime"
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// Options configures an Allocator.
type Options struct {
	// Budget bounds the bytes of linear memory (the sum of the current
	// sizes) held by all live memories together. A growth that would pass
	// it is refused. 0 means unlimited.
	Budget uint64
	// MaxPooled is how many freed reservations are kept for reuse, over all
	// size classes. A freed reservation beyond it is unmapped. 0 keeps none.
	MaxPooled int
	// Heap puts every memory on the Go heap instead of an mmap reservation,
	// with the same budget accounting.
	Heap bool
}

// Stats is a snapshot of an Allocator's state.
type Stats struct {
	// Live counts memories allocated and not yet freed.
	Live int
	// Committed is the sum of the live memories' sizes in bytes: what the
	// budget is charged with.
	Committed uint64
	// Pooled counts freed reservations kept for reuse.
	Pooled int
	// Reserved is the address space, in bytes, held by live and pooled
	// mmap reservations. It is not memory in use.
	Reserved uint64
	// Refused counts growths refused by the budget since New.
	Refused uint64
	// Waiting counts the Reserve calls waiting for room in the budget.
	Waiting int
}

const (
	minClassShift = 16 // 64 KiB: one wasm page
	numClasses    = 17 // 64 KiB .. 4 GiB, the most a 32-bit wasm memory can have
)

// Allocator implements experimental.MemoryAllocator. It is safe for
// concurrent use; one Allocator is meant to serve the whole process.
//
// Budget: Reallocate returns nil, which wazero turns into memory.grow
// returning -1, when a growth would take the live memories past
// Options.Budget. The first Reallocate of a memory, its initial size at
// instantiation, is always granted and charged, even past the budget:
// wazero v1.12 panics when that call returns nil, and Extism v1.7.1 then
// leaves the instance's kernel memory, already built, live until the
// CompiledPlugin closes, which would drain the budget for good. So the
// initial sizes are charged before instantiation instead: Reserve takes
// them from the budget (waiting for room, or refusing), and memories
// allocated through the Reservation draw their initial size from it.
type Allocator struct {
	budget    uint64
	maxPooled int

	mu        sync.Mutex
	pool      [numClasses][]*region
	pooled    int
	live      int
	committed uint64 // live memories' sizes plus what Reservations hold
	reserved  uint64
	refused   uint64
	waiting   int // Reserve calls waiting for room
	heap      bool
	wake      chan struct{} // closed when committed falls, if anyone waits
}

// New returns an Allocator configured by opts.
func New(opts Options) *Allocator {
	if opts.MaxPooled < 0 {
		opts.MaxPooled = 0
	}
	return &Allocator{budget: opts.Budget, maxPooled: opts.MaxPooled, heap: opts.Heap}
}

// Stats returns a consistent snapshot of the allocator's counters.
func (a *Allocator) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return Stats{Live: a.live, Committed: a.committed, Pooled: a.pooled, Reserved: a.reserved, Refused: a.refused,
		Waiting: a.waiting}
}

// Trim unmaps every pooled reservation.
func (a *Allocator) Trim() {
	a.mu.Lock()
	var drop []*region
	for i := range a.pool {
		drop = append(drop, a.pool[i]...)
		clear(a.pool[i])
		a.pool[i] = a.pool[i][:0]
	}
	a.pooled = 0
	a.mu.Unlock()
	for _, r := range drop {
		a.unmap(r)
	}
}

// Allocate implements experimental.MemoryAllocator. It reserves max bytes
// of address space rounded up to a power of two (the size class, 64 KiB to
// 4 GiB), or reuses a pooled reservation of that class, and commits
// nothing: Reallocate does. capacity only sizes the heap fallback. The returned memory never moves,
// so it may back a shared memory, except in the heap fallback (no mmap on
// this platform, or mmap failed).
func (a *Allocator) Allocate(capacity, max uint64) experimental.LinearMemory {
	return a.allocate(capacity, max, nil)
}

func (a *Allocator) allocate(capacity, max uint64, res *Reservation) experimental.LinearMemory {
	l := &lease{a: a, max: max, hint: capacity, res: res}
	class, size, poolable := classOf(max)
	a.mu.Lock()
	a.live++
	if max > 0 && poolable && !a.heap {
		if n := len(a.pool[class]); n > 0 {
			l.r = a.pool[class][n-1]
			a.pool[class][n-1] = nil
			a.pool[class] = a.pool[class][:n-1]
			a.pooled--
		}
	}
	a.mu.Unlock()
	if max > 0 && l.r == nil && !a.heap {
		if l.r = reserve(size); l.r != nil {
			a.mu.Lock()
			a.reserved += uint64(len(l.r.mem))
			a.mu.Unlock()
		}
	}
	m := &linearMemory{l: l}
	// wazero drops a memory without Free when instantiation fails after the
	// memory was built (a data segment out of bounds, a trapping start
	// function). The cleanup gives its budget and reservation back.
	m.cleanup = runtime.AddCleanup(m, func(l *lease) { l.release(false) }, l)
	return m
}

// classOf returns the pool class of a reservation for max bytes, the size
// to reserve, and whether reservations of that size are pooled.
func classOf(max uint64) (class int, size uint64, poolable bool) {
	if max <= 1<<minClassShift {
		return 0, 1 << minClassShift, true
	}
	shift := bits.Len64(max - 1)
	if class = shift - minClassShift; class >= numClasses {
		return -1, max, false
	}
	return class, 1 << shift, true
}

// linearMemory is what wazero holds. Its state lives in lease so that the
// cleanup, which must not reach linearMemory, can release it.
type linearMemory struct {
	l       *lease
	cleanup runtime.Cleanup
}

// lease is the state of one memory between Allocate and Free.
type lease struct {
	a       *Allocator
	max     uint64
	hint    uint64       // wazero's suggested capacity, for the heap fallback
	r       *region      // nil: heap fallback
	res     *Reservation // the first growth draws from it, if set
	heap    []byte
	size    uint64 // bytes handed out and charged to the budget
	started bool   // the first Reallocate (the initial size) has happened
	freed   bool
}

// Reallocate implements experimental.LinearMemory. It returns the memory
// as a slice of length and capacity size, after committing and charging
// any growth. It returns nil if size is above the memory's max, if the
// growth would pass the budget (never for the first call, see Allocator),
// if the pages cannot be committed, or after Free.
func (m *linearMemory) Reallocate(size uint64) []byte {
	l := m.l
	a := l.a
	if size > l.max {
		return nil
	}
	first := !l.started
	l.started = true
	if size > l.size {
		delta := size - l.size
		a.mu.Lock()
		if l.freed {
			a.mu.Unlock()
			return nil
		}
		if !first && a.budget > 0 && a.committed+delta > a.budget {
			a.refused++
			a.mu.Unlock()
			return nil
		}
		charged := delta
		if first && l.res != nil {
			// Already charged by the reservation.
			charged -= min(delta, l.res.left)
			l.res.left -= delta - charged
		}
		a.committed += charged
		a.mu.Unlock()
		if !l.grow(size) {
			a.mu.Lock()
			a.committed -= delta // the reserved part too: it went with the memory
			a.wakeLocked()
			a.mu.Unlock()
			return nil
		}
		a.mu.Lock()
		l.size = size
		a.mu.Unlock()
	}
	if l.r != nil {
		return l.r.mem[:size:size]
	}
	if l.heap == nil {
		l.heap = []byte{}
	}
	return l.heap[:size:size]
}

// grow makes size bytes usable: committed pages of the reservation, or a
// larger heap slice holding the old contents.
func (l *lease) grow(size uint64) bool {
	if l.r != nil {
		if l.r.commit(size) == nil {
			return true
		}
		if l.size > 0 {
			return false // the contents cannot move to the heap mid-life
		}
		l.a.unmap(l.r) // commit failed on a fresh memory: fall back to the heap
		l.r = nil
	}
	l.heap = Grow(l.heap, size, l.hint, l.max)
	return true
}

// Grow returns buf with its length set to size, keeping its contents: in
// place when its capacity allows, else copied into a new array of at
// least twice the old capacity and at least hint, but never above limit
// (size itself must not be).
func Grow(buf []byte, size, hint, limit uint64) []byte {
	if size <= uint64(cap(buf)) {
		return buf[:size]
	}
	c := min(max(size, 2*uint64(cap(buf)), hint), limit)
	nb := make([]byte, size, c)
	copy(nb, buf)
	return nb
}

// Free implements experimental.LinearMemory. It returns the memory's bytes
// to the budget, hands its used pages back to the kernel so that they read
// as zeros, and pools or unmaps the reservation. A second Free does
// nothing.
func (m *linearMemory) Free() {
	if m.l.release(true) {
		m.cleanup.Stop()
	}
}

// release ends the lease once. reuse=false (the GC cleanup of a memory
// wazero never freed) unmaps the reservation rather than pool it.
func (l *lease) release(reuse bool) bool {
	a := l.a
	a.mu.Lock()
	if l.freed {
		a.mu.Unlock()
		return false
	}
	l.freed = true
	a.live--
	a.committed -= l.size
	a.wakeLocked()
	r, used := l.r, l.size
	l.r, l.heap, l.size = nil, nil, 0
	a.mu.Unlock()
	if r != nil {
		a.recycle(r, used, reuse)
	}
	return true
}

// recycle zeroes the first used bytes of r and pools it, or unmaps it if
// the pool is full, reuse is false, or the zeroing failed.
func (a *Allocator) recycle(r *region, used uint64, reuse bool) {
	if !reuse || a.maxPooled == 0 || r.scrub(used) != nil {
		a.unmap(r)
		return
	}
	class, size, poolable := classOf(uint64(len(r.mem)))
	a.mu.Lock()
	if poolable && size == uint64(len(r.mem)) && a.pooled < a.maxPooled {
		a.pool[class] = append(a.pool[class], r)
		a.pooled++
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	a.unmap(r)
}

// unmap releases r's address space and its accounting.
func (a *Allocator) unmap(r *region) {
	n := uint64(len(r.mem))
	r.unmap()
	a.mu.Lock()
	a.reserved -= n
	a.mu.Unlock()
}

// region is one reservation of address space.
type region struct {
	mem []byte // the whole reservation: len == cap == reserved size
	rw  uint64 // length of the prefix made readable and writable so far
}

// ErrOverBudget is Reserve's refusal of more bytes than the whole budget.
var ErrOverBudget = errors.New("memalloc: more than the whole memory budget")

// Reservation is memory charged to the budget ahead of instantiation. It is
// an experimental.MemoryAllocator: the first Reallocate of each memory it
// allocates (the memory's initial size, which the budget cannot refuse)
// draws from what it holds before charging the budget. Release hands back
// what was not drawn.
type Reservation struct {
	a    *Allocator
	left uint64 // guarded by a.mu
}

// Reserve charges n bytes to the budget for an instance about to be built:
// its memories' initial sizes and anything else it holds while it lives.
// If the budget has no room now it waits until other memories free enough
// or ctx ends, and then returns ctx's error. It returns ErrOverBudget at
// once if n exceeds the whole budget. With no budget it always succeeds.
func (a *Allocator) Reserve(ctx context.Context, n uint64) (*Reservation, error) {
	if a.budget > 0 && n > a.budget {
		a.mu.Lock()
		a.refused++
		a.mu.Unlock()
		return nil, ErrOverBudget
	}
	for {
		a.mu.Lock()
		if a.budget == 0 || a.committed+n <= a.budget {
			a.committed += n
			a.mu.Unlock()
			return &Reservation{a: a, left: n}, nil
		}
		if a.wake == nil {
			a.wake = make(chan struct{})
		}
		wake := a.wake
		a.waiting++
		a.mu.Unlock()
		select {
		case <-wake:
			a.mu.Lock()
			a.waiting--
			a.mu.Unlock()
		case <-ctx.Done():
			a.mu.Lock()
			a.waiting--
			a.refused++
			a.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

// Allocate implements experimental.MemoryAllocator: a memory of the
// Reservation's Allocator whose initial size is drawn from the reservation.
func (r *Reservation) Allocate(capacity, max uint64) experimental.LinearMemory {
	return r.a.allocate(capacity, max, r)
}

// Release returns to the budget what the memories did not draw. The memories
// themselves stay charged until freed. A second Release does nothing.
func (r *Reservation) Release() {
	a := r.a
	a.mu.Lock()
	a.committed -= r.left
	r.left = 0
	a.wakeLocked()
	a.mu.Unlock()
}

// wakeLocked wakes the Reserve calls waiting for room. a.mu is held.
func (a *Allocator) wakeLocked() {
	if a.wake != nil {
		close(a.wake)
		a.wake = nil
	}
}
