package plugin

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/internal/memalloc"
	"github.com/mcpwasm/mcpwasm/host/plugin/internal/hostenv"
	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// A cold load reads everything a plugin declares (mcpwasm_abi_version, then
// each list export and each of its pages) from one instance of the
// lister, not from a fresh instance per export as calls are run: starting
// a standard-Go module runs Go's runtime initialisation, in the
// interpreter, which cost more than the list itself (RATIONALE.md, "The
// load path"). Each read keeps everything a call has — its own time limit
// (a read that spins is stopped, and then retried compiled, see List), its
// own CPU slot, the plugin's memory limit, the output limit — except the
// fresh instance. The declarations are a function of the module and its
// configuration (ABI.md §2), so what one read leaves in the instance may
// only change the plugin's own lists, which is its right. After a read
// fails in any way the instance is dropped and the next read starts a new
// one; it is closed once the declarations are kept (KeepDeclarations), at
// the plugin's first compiled call, or when the plugin closes.

// listInstance is the lister's shared instance and what it was built with.
type listInstance struct {
	inst           *instance
	res            *memalloc.Reservation
	stdout, stderr *capWriter
	mem            *memWatch
	exit           *exitWatch
	// cur is the running read's context: a sleep ends with its read, not
	// with the instance.
	cur atomic.Pointer[context.Context]
}

func (li *listInstance) close() {
	li.inst.close()
	li.res.Release()
}

// listRead runs export on the lister's shared instance, making the
// instance if there is none, under the plugin's time limit and output
// limit. It returns the output and the export's return code. A list read
// is traced as a plugin call (the version probe is not). The caller holds
// p.listerMu for reading, with p.lister set.
func (p *Plugin) listRead(ctx context.Context, export string, input []byte) (out []byte, rc uint32, cerr *Error) {
	var o outcome
	if export != abi.ExportABIVersion {
		var span *tracing.Span
		ctx, span = tracing.StartPluginCall(ctx, p.cfg.Name, p.digest, export)
		if span != nil {
			defer func() {
				endSpan(span, cerr, o.cpu, o.memPeak)
			}()
		}
	}
	if len(input) > p.MaxInput() {
		return nil, 0, newError(abi.ErrInputTooBig, nil, "the input is %s, more than the plugin accepts (%s with its memory limit of %s)",
			humanBytes(uint64(len(input))), humanBytes(uint64(p.MaxInput())), humanBytes(p.cfg.MemoryLimit))
	}
	p.listInstMu.Lock()
	defer p.listInstMu.Unlock()
	callCtx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	out, o, rerr := p.readOn(ctx, callCtx, export, input)
	if rerr != nil {
		return nil, 0, rerr
	}
	o.cancelled = errors.Is(ctx.Err(), context.Canceled)
	rc = o.rc
	if export == abi.ExportABIVersion {
		o.rc = 0 // a version probe returns its answer as the code
	}
	e := classify(o)
	if e != nil || o.exited {
		// Whatever state the failure left the instance in, the next read
		// does not inherit it.
		p.closeListInstance()
	}
	if e != nil {
		return nil, rc, e
	}
	if len(out) > p.cfg.MaxOutput {
		return nil, rc, newError(abi.ErrOutputTooBig, nil, "the plugin's %s output is %s, more than the limit of %s",
			export, humanBytes(uint64(len(out))), humanBytes(uint64(p.cfg.MaxOutput))).with("limit_bytes", p.cfg.MaxOutput)
	}
	return out, rc, nil
}

// readOn is one read on the shared instance (see run, which does the same
// on a fresh one). p.listInstMu is held. A non-nil *Error says the
// instance could not be given its memory (the budget).
func (p *Plugin) readOn(ctx, callCtx context.Context, export string, input []byte) (out []byte, o outcome, rerr *Error) {
	o.timeoutMs = p.cfg.Timeout.Milliseconds()
	o.memLimit = p.cfg.MemoryLimit
	st := &callState{plugin: p}
	li := p.listInst
	defer func() {
		if r := recover(); r != nil {
			p.hostPanic(ctx, export, r, &o)
		}
		if st.cpu != nil {
			o.cpu = st.cpu.Used()
		}
		o.ctxErr = callCtx.Err()
		if li != nil {
			o.stderr = li.stderr.String()
			o.memAtMax = li.mem.hitLimit() || st.growFailed.Load()
			o.memPeak = li.mem.peakBytes()
			p.logGuestOutput(ctx, nil, export, li.stdout, li.stderr)
			li.stdout.reset()
			li.stderr.reset()
		}
	}()
	turn, err := p.rt.cpu.Acquire(callCtx, p.cfg.Name)
	if err != nil {
		o.err = err
		return nil, o, nil
	}
	defer turn.Release() // before the deferred report above reads Used
	st.cpu = turn
	if li == nil {
		var err error
		if li, rerr, err = p.newListInstance(ctx, callCtx, st); rerr != nil || err != nil {
			o.err, o.rc = err, 1
			return nil, o, rerr
		}
		p.listInst = li
		p.listInstLive.Store(true)
	}
	li.inst.env.Host = st
	callCtx = hostenv.With(callCtx, li.inst.env)
	li.cur.Store(&callCtx)
	li.exit.arm(true)
	if p.guard != nil {
		p.guard.arm(callCtx)
	}
	o.rc, out, o.err = li.inst.call(callCtx, export, input)
	li.exit.arm(false)
	o.exited, o.exitCode = li.exit.result()
	if o.err != nil && !o.exited && callCtx.Err() == nil {
		o.guestMsg = li.inst.errorMessage()
	}
	return out, o, nil
}

// newListInstance builds the shared instance, its memory charged against
// the server's budget like a call's. callCtx is the first read's (the
// instance's start runs under it), with st its state.
func (p *Plugin) newListInstance(ctx, callCtx context.Context, st *callState) (*listInstance, *Error, error) {
	res, rerr := p.reserve(ctx, callCtx)
	if rerr != nil {
		return nil, rerr, nil
	}
	li := &listInstance{res: res, stdout: &capWriter{max: guestOutputCap}, stderr: &capWriter{max: guestOutputCap},
		mem: &memWatch{inner: res, limit: p.cfg.MemoryLimit}, exit: &exitWatch{}}
	mc := p.moduleConfig(func() context.Context { return *li.cur.Load() }, li.stdout, li.stderr)
	li.cur.Store(&callCtx)
	if p.guard != nil {
		p.guard.arm(callCtx)
	}
	inst, _, err := p.newInstance(callCtx, p.lister, mc, li.mem, li.exit, st, func(c context.Context) { li.cur.Store(&c) })
	if err != nil {
		res.Release()
		return nil, nil, err
	}
	li.inst = inst
	p.rt.loads.listInstances.Add(1)
	return li, nil, nil
}

// closeListInstance drops the shared instance, if any. p.listInstMu is
// held, or no read can run.
func (p *Plugin) closeListInstance() {
	if p.listInst != nil {
		p.listInst.close()
		p.listInst = nil
		p.listInstLive.Store(false)
	}
}

// endListing closes the shared instance once the load-time reads are over
// (the first compiled call says they are).
func (p *Plugin) endListing() {
	p.listInstMu.Lock()
	defer p.listInstMu.Unlock()
	p.closeListInstance()
}

// probeABI runs mcpwasm_abi_version on the lister's shared instance and
// returns its answer, the export's return code.
func (p *Plugin) probeABI(ctx context.Context) (uint32, *Error) {
	p.listerMu.RLock()
	_, rc, cerr := p.listRead(ctx, abi.ExportABIVersion, nil)
	p.listerMu.RUnlock()
	if cerr == nil || cerr.Category != abi.ErrTimeout {
		return rc, cerr
	}
	// As in List: what fits in the time limit compiled must not fail for
	// running in the interpreter.
	code, cerr := p.machineCode(ctx)
	if cerr != nil {
		return 0, cerr
	}
	callCtx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	res, cerr := p.reserve(ctx, callCtx)
	if cerr != nil {
		return 0, cerr
	}
	defer res.Release()
	_, o := p.run(callCtx, code, abi.ExportABIVersion, nil, res, CallOptions{})
	rc, o.rc = o.rc, 0
	if e := classify(o); e != nil {
		return rc, e
	}
	return rc, nil
}

// reset empties the writer for the next read on the same instance.
func (w *capWriter) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf, w.dropped = w.buf[:0], 0
}
