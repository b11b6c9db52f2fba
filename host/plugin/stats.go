package plugin

import (
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
)

// Stats is a snapshot of the sandbox's load across every plugin of a
// Runtime, for metrics. Each field is read on its own, so the fields are
// not one consistent instant; each is exact when read.
type Stats struct {
	// MemoryInUse is the guest memory charged to the memory budget now, in
	// bytes: the linear memories of live instances and what calls about to
	// start have reserved.
	MemoryInUse uint64
	// MemoryBudget is the budget (RuntimeOptions.MemoryBudget; 0: none).
	MemoryBudget uint64
	// InFlight counts the calls inside Invoke: waiting or running.
	InFlight int
	// Computing counts the guests holding a CPU slot.
	Computing int
	// WaitingSlot counts the calls waiting for a concurrency slot (their
	// plugin's or the server's), WaitingBudget those waiting for room in the
	// memory budget, WaitingCPU those waiting for a CPU slot (to start, or
	// to resume after yielding or a host call).
	WaitingSlot, WaitingBudget, WaitingCPU int
}

// callCounts are the Runtime's own counters behind Stats.
type callCounts struct {
	inFlight    atomic.Int64
	waitingSlot atomic.Int64
}

// Stats reports the sandbox's load: memory in use against the budget,
// calls in flight, computing and waiting, and for what.
func (rt *Runtime) Stats() Stats {
	mem := rt.mem.Stats()
	cpu := rt.cpu.Stats()
	return Stats{
		MemoryInUse:   mem.Committed,
		MemoryBudget:  rt.budget,
		InFlight:      int(rt.calls.inFlight.Load()),
		Computing:     cpu.Running,
		WaitingSlot:   int(rt.calls.waitingSlot.Load()),
		WaitingBudget: mem.Waiting,
		WaitingCPU:    cpu.WaitingFresh + cpu.WaitingResumed,
	}
}

// take puts a token in sem, counting the call as waiting for a slot while
// it blocks. It returns false if done closes first.
func (rt *Runtime) take(sem chan struct{}, done <-chan struct{}) bool {
	select {
	case sem <- struct{}{}:
		return true
	default:
	}
	rt.calls.waitingSlot.Add(1)
	defer rt.calls.waitingSlot.Add(-1)
	select {
	case sem <- struct{}{}:
		return true
	case <-done:
		return false
	}
}

// SHA256 returns the hex SHA256 digest of the plugin's file as it was
// loaded (before any rewrite), for audit records.
func (p *Plugin) SHA256() string { return p.digest }

// CallRecord tells a caller what happened in the sandbox during a call,
// whatever the layers above make of it (a failed resource read reaches the
// client as a message, without its category). InvokeWith fills the record
// its CallOptions name.
type CallRecord struct {
	// Category is the failure's category; empty when the call succeeded.
	Category abi.ErrorCategory
	// OutputBytes is the size of the guest's output.
	OutputBytes int
	// CPU is how long the guest held a CPU slot, and MemoryPeak the peak
	// of its linear memories together. A worker (host/isolate) reports
	// them back with its answer, so a remote call's span carries them.
	CPU        time.Duration
	MemoryPeak uint64
}

// note fills r (when set) with a finished call's output, failure and, when
// o is not nil, its CPU time and memory peak.
func (r *CallRecord) note(out []byte, err *Error, o *outcome) {
	if r == nil {
		return
	}
	r.OutputBytes = len(out)
	r.Category = ""
	if o != nil {
		r.CPU, r.MemoryPeak = o.cpu, o.memPeak
	}
	if err != nil {
		r.Category = err.Category
	}
}
