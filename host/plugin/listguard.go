package plugin

import (
	"context"
	"fmt"

	"github.com/mcpwasm/mcpwasm/host/internal/wasmbin"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// A cold load lists the original module, without interruption points
// (RATIONALE.md, "The load path"): the rewrite cost a third of a cold
// load's CPU and only the compiled code needs it. wazero's interpreter then
// runs the lister with a function listener (listGuard) that gives it what
// the rewrite gives compiled code:
//
//   - a deadline check at every function entry: the interpreter's own check
//     (WithCloseOnContextDone, on for the lister) sits at loop headers only,
//     and a loop-free call tree would run on past its limit;
//   - a stack bound: each entry adds the function's frame estimate
//     (wasmbin.FrameSizes, the rewrite's estimate) to a depth, each return
//     takes it off, and a depth past StackLimit stops the guest with
//     errStackOverflow. Without it only the interpreter's 2,000-frame
//     ceiling bounds the stack.
//
// A listener's panic is recovered by wazero's call into an error (a
// *sys.ExitError as is, others wrapped), like a host function's.

// listGuard is the state of one lister's checks. Its fields are used by
// the goroutine running the read only (reads on a lister are serialized
// by listInstMu, the calls it serves after them by interpSlot: tier.go),
// so they need no locks.
type listGuard struct {
	mod     *wasmbin.Module // what Preflight found
	frames  []int32         // frame estimate of each function the main module defines
	imports uint32          // functions the main module imports
	ls      []*guardListener
	ctx     context.Context // the running read's; nil between reads
	done    <-chan struct{}
	depth   int64
	calls   uint32 // entries since the last yield
}

// yieldCalls is how many function entries pass between two offers of the
// read's CPU slot to a waiting call (the rewrite's poll does the same about
// once per pollFuel instructions).
const yieldCalls = 1 << 16

// arm starts a read (or the instance's start) under ctx, with an empty
// stack.
func (g *listGuard) arm(ctx context.Context) {
	g.ctx, g.done, g.depth = ctx, ctx.Done(), 0
}

// NewFunctionListener implements experimental.FunctionListenerFactory:
// every function written in Wasm gets a listener; host functions none.
// Which module a function belongs to is settled after the compile (see
// resolve).
func (g *listGuard) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if def.GoFunction() != nil {
		return nil
	}
	l := &guardListener{g: g, def: def, size: defaultFrame}
	g.ls = append(g.ls, l)
	return l
}

// defaultFrame is a function's frame estimate until resolve gives it the
// rewrite's (every function listened to is the main module's: host
// modules' Go functions get no listener).
const defaultFrame = 64

// resolve gives the main module's functions their frame estimates once the
// plugin is compiled. newCompiled builds the host modules, then compiles
// the main module, so its functions are the last ones listened to:
// resolve checks that their indexes say so, and fails otherwise (the
// lister then must not run the module unguarded).
func (g *listGuard) resolve() error {
	n := len(g.frames)
	if len(g.ls) < n {
		return fmt.Errorf("lister guard: %d listened functions, the module defines %d", len(g.ls), n)
	}
	main := g.ls[len(g.ls)-n:]
	for i, l := range main {
		if l.def.Index() != g.imports+uint32(i) {
			return fmt.Errorf("lister guard: function %d of the main module has index %d, want %d", i, l.def.Index(), g.imports+uint32(i))
		}
		l.size = int64(g.frames[i])
	}
	g.ls = nil
	return nil
}

// guardListener is the listener of one function.
type guardListener struct {
	g    *listGuard
	def  api.FunctionDefinition
	size int64
}

// Before stops the guest if the read's context has ended or its stack
// would pass StackLimit.
func (l *guardListener) Before(context.Context, api.Module, api.FunctionDefinition, []uint64, experimental.StackIterator) {
	g := l.g
	select {
	case <-g.done:
		stopIfDone(g.ctx)
	default:
	}
	if g.calls++; g.calls == yieldCalls {
		g.calls = 0
		if st := stateOf(g.ctx); st != nil && st.cpu != nil {
			st.cpu.Yield(g.ctx) //nolint:errcheck // fails only when ctx ended, which stopIfDone reports
			stopIfDone(g.ctx)
		}
	}
	if g.depth+l.size > StackLimit {
		panic(errStackOverflow)
	}
	g.depth += l.size
}

// After takes the function's frame off the depth.
func (l *guardListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {
	l.g.depth -= l.size
}

// Abort is called as a failed call unwinds (for at most 30 frames: the
// depth is reset by the next arm instead).
func (l *guardListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

func stateOf(ctx context.Context) *callState {
	if ctx == nil {
		return nil
	}
	return callStateFrom(ctx)
}

// checkedForListing checks the module (rt.checked) and estimates its
// frames for the lister's guard. A module the rewrite's decoder cannot
// read is refused here, as the rewrite would refuse it.
func (rt *Runtime) checkedForListing(cfg *Config) ([]byte, *listGuard, error) {
	raw, mod, err := rt.checked(cfg)
	if err != nil {
		return nil, nil, err
	}
	frames, err := wasmbin.FrameSizes(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", wasmbin.ErrNotInstrumentable, err)
	}
	g := &listGuard{mod: mod, frames: frames}
	for _, imp := range mod.Imports {
		if imp.Kind == wasmbin.KindFunc {
			g.imports++
		}
	}
	return raw, g, nil
}
