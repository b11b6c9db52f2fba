package plugin

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/mcpwasm/mcpwasm/host/internal/cpusched"
	"github.com/mcpwasm/mcpwasm/host/internal/wasmbin"
	"github.com/mcpwasm/mcpwasm/host/plugin/internal/hostenv"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// How a running guest is stopped at its deadline (see RATIONALE.md,
// "Interruption points").
//
// At load, every module is rewritten (wasmbin.Instrument) to spend fuel at
// function entries and loop headers and to call the poll host function
// when the fuel runs out, about once per pollFuel instructions (well under
// a millisecond). The poll stops the guest if the call's context has ended,
// gives its CPU slot to a waiting call if it has had its share, and hands
// out fresh fuel. Between two polls a guest runs only code of bounded
// length, so every call ends close to its deadline whatever its shape, and
// since the poll is Go code, Go's garbage collector never waits long for a
// guest to reach a safe point. wazero's own check (WithCloseOnContextDone),
// which costs an exit to Go at every loop iteration and misses loop-free
// code, is off.

// InterruptMode chooses how guests are interrupted. Only the default is
// safe for untrusted code; the others exist to measure it against.
type InterruptMode int

const (
	// InterruptPoints rewrites the module with interruption points
	// (the default).
	InterruptPoints InterruptMode = iota
	// InterruptEngine runs the module unchanged with wazero's
	// WithCloseOnContextDone: slower, and code without loops is not stopped.
	InterruptEngine
	// InterruptNone runs the module unchanged with no check at all: the
	// engine's own speed, and a guest that never returns is never stopped.
	// For benchmarks only.
	InterruptNone
)

const (
	// interruptNamespace holds the host functions the rewrite imports. It is
	// not in the ABI: a plugin importing it is refused like any unknown
	// namespace.
	interruptNamespace = "mcpwasm:host/interrupt"
	// pollFuel is the fuel between two polls, in units of about one
	// instruction: about 0.1 to 1 ms of guest time.
	pollFuel = 1 << 20
)

// StackLimit bounds a guest's call stack, in bytes as the rewrite
// estimates frames (wasmbin.InterruptOptions.StackLimit). wazero keeps the
// stack on the Go heap and would otherwise let it reach 50 MB (about 120 MB
// of Go heap with its copies) before reporting an overflow. It allows
// recursion some 5,000 to 50,000 calls deep for ordinary functions (a frame
// is estimated at 64 bytes plus 16 per local and per value its operand
// stack can hold), and is charged against the memory budget: an overflow
// at this limit allocates less than the limit itself.
const StackLimit = 4 << 20

var interruptOptions = wasmbin.InterruptOptions{
	Module: interruptNamespace, Name: "poll", GrowFailed: "grow_failed", Fuel: pollFuel,
	StackLimit: StackLimit, StackExhausted: "stack_exhausted", ClampSleeps: true,
}

// errStackOverflow stops a guest whose stack passed StackLimit; classify
// reports it as stack_overflow.
var errStackOverflow = errors.New("stack overflow: the call stack passed its limit")

// callState is what the host functions know of their call beside the
// kernel's state: the embedder's part of the hostenv.Instance the call's
// context carries (hostenv.Instance.Host).
type callState struct {
	growFailed atomic.Bool    // a memory.grow failed during the call
	cpu        *cpusched.Turn // the call's hold on a CPU slot
	cb         Callbacks      // where the guest reports (CallOptions.Callbacks), or nil
	net        *netCall       // the call's HTTP requests (net.go), from its first
	plugin     *Plugin        // the plugin called (its network guard)
	gate       *tierGate      // an interpreted call's (tier.go), or nil
}

// callStateFrom is the running call's state, or nil outside a call.
func callStateFrom(ctx context.Context) *callState {
	if env := hostenv.From(ctx); env != nil {
		st, _ := env.Host.(*callState)
		return st
	}
	return nil
}

// interruptFunctions are the host functions of interruptNamespace.
func interruptFunctions() []hostFunc {
	poll := hostFunc{"poll", nil, []api.ValueType{api.ValueTypeI32}, func(ctx context.Context, stack []uint64) {
		stopIfDone(ctx)
		if st := callStateFrom(ctx); st != nil && st.cpu != nil {
			st.cpu.Yield(ctx) //nolint:errcheck // fails only when ctx ended, which stopIfDone reports
			stopIfDone(ctx)
		}
		stack[0] = pollFuel
	}}
	grow := hostFunc{"grow_failed", nil, nil, func(ctx context.Context, _ []uint64) {
		if st := callStateFrom(ctx); st != nil {
			st.growFailed.Store(true)
		}
	}}
	stack := hostFunc{"stack_exhausted", nil, nil, func(context.Context, []uint64) { panic(errStackOverflow) }}
	return []hostFunc{poll, grow, stack}
}

// stopIfDone unwinds the guest when ctx has ended. wazero returns a
// *sys.ExitError panicked by a host function as the call's error, which
// classify reads as a timeout or a cancellation.
func stopIfDone(ctx context.Context) {
	switch ctx.Err() {
	case nil:
	case context.DeadlineExceeded:
		panic(sys.NewExitError(sys.ExitCodeDeadlineExceeded))
	default:
		panic(sys.NewExitError(sys.ExitCodeContextCanceled))
	}
}

// blocking gives the call's CPU slot up while a host function waits (a
// sleep, a request to the client); call the returned function when it is
// done. The slot is taken back ahead of calls that yielded theirs.
func blocking(ctx context.Context) (done func()) {
	st := callStateFrom(ctx)
	if st == nil || st.cpu == nil {
		return func() {}
	}
	st.cpu.Pause()
	return func() {
		st.cpu.Resume(ctx) //nolint:errcheck // fails only when ctx ended; the next poll stops the guest
	}
}
