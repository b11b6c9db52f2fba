package plugin

import (
	"context"
	"sync/atomic"
)

// First calls after a cold load are answered by the interpreter
// (RATIONALE.md, "First calls"). A cold load lists the plugin through
// wazero's interpreter (the lister, code.go); its code is kept until the
// machine code is built, and a call arriving before that runs on it, in a
// fresh instance of its own, under everything a compiled call has: the
// time limit (the lister's guard or the interruption points, and wazero's
// loop-header check), the memory limit and budget, the stack bound (the
// guard's depth, the rewrite's estimates), the CPU slot, the concurrency
// bounds. The call asks for the machine code at once (an urgent build,
// buildqueue.go).
//
// The interpreter is slower than machine code, and a call that fits in its
// time limit compiled must not fail for running first. So when the machine
// code is ready while an interpreted call still runs, and the guest has
// done nothing outside its sandbox yet, the interpreted run is abandoned
// and the call runs again on the machine code, with its full time limit.
// Doing something outside commits the call to the interpreter: a request
// to or notification of the client (progress, logs, sampling, ...) or an
// HTTP request. The two race through one atomic (tierGate): whichever
// comes first wins, so an effect is never made by a run that is then
// thrown away and run again. Calls with folders mounted never run
// interpreted (a write would be an effect the gate cannot see).

// tierGate decides, for one interpreted call, between committing to the
// interpreter and abandoning it for the machine code.
type tierGate struct {
	state atomic.Int32 // 0 undecided, 1 committed, 2 abandoned
}

// commit says the guest is about to do something outside its sandbox; it
// reports whether it may (false: the run was abandoned, the effect must
// not happen). A nil gate (a compiled call) always may.
func (g *tierGate) commit() bool {
	if g == nil {
		return true
	}
	g.state.CompareAndSwap(0, 1)
	return g.state.Load() == 1
}

// abandon gives up the interpreted run if it has not committed.
func (g *tierGate) abandon() bool { return g.state.CompareAndSwap(0, 2) }

func (g *tierGate) abandoned() bool { return g != nil && g.state.Load() == 2 }

type gateKey struct{}

// gateFrom is the interpreted call's gate in ctx, or nil.
func gateFrom(ctx context.Context) *tierGate {
	g, _ := ctx.Value(gateKey{}).(*tierGate)
	return g
}

// invokeInterpreted runs the call on the lister's code if the machine code
// is not ready and the plugin was listed by running it. ok false: it did
// not (or gave the run up for the machine code); the caller runs the call
// compiled.
func (p *Plugin) invokeInterpreted(ctx context.Context, export string, input []byte, co CallOptions) (out []byte, cerr *Error, ok bool) {
	if len(co.Mounts) > 0 || !p.kept.Load() || p.codeReady() {
		return nil, nil, false
	}
	if !p.listerMu.TryRLock() { // the lister is being dropped: the code is ready
		return nil, nil, false
	}
	defer p.listerMu.RUnlock()
	l := p.lister
	if l == nil {
		return nil, nil, false
	}
	done := p.startCompile(true)
	p.promoteBuild(false) // urgent, but leaving a core to this call
	if l.guard != nil {
		// The guard's state is the lister's: one guarded run at a time.
		select {
		case p.interpSlot <- struct{}{}:
			defer func() { <-p.interpSlot }()
		case <-done:
			return nil, nil, false
		case <-ctx.Done():
			return nil, nil, false // machineCode reports the cancellation
		}
	}
	gate := &tierGate{}
	ictx, cancel := context.WithCancel(context.WithValue(ctx, gateKey{}, gate))
	defer cancel()
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-done:
			if gate.abandon() {
				cancel()
			}
		case <-finished:
		}
	}()
	p.rt.loads.interpreted.Add(1)
	out, cerr = p.invoke(ictx, l, export, input, co)
	if gate.abandoned() {
		p.rt.loads.abandoned.Add(1)
		return nil, nil, false
	}
	return out, cerr, true
}

// codeReady reports whether the machine code's build has ended.
func (p *Plugin) codeReady() bool {
	p.codeMu.Lock()
	done := p.compiling
	p.codeMu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// promoteBuild makes the plugin's build urgent if it still waits in the
// queue (buildQueue.promote).
func (p *Plugin) promoteBuild(allCores bool) {
	p.codeMu.Lock()
	t := p.ticket
	p.codeMu.Unlock()
	if t != nil {
		p.rt.queue.promote(t, allCores)
	}
}
