package plugin

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/internal/memalloc"
	"github.com/mcpwasm/mcpwasm/host/plugin/internal/hostenv"
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/tetratelabs/wazero"
)

// MaxInput is the largest input a call accepts: what fits in the kernel's
// memory beyond its initial 1 MiB, with a page to spare. Larger inputs
// are refused before the guest runs.
func (p *Plugin) MaxInput() int {
	return int(p.cfg.MemoryLimit) - (hostenv.MinPages+1)*pageSize
}

// CallOptions are what one call brings beside its export and input.
type CallOptions struct {
	// Mounts are the folders the guest sees, each at its own host path.
	// Each must be one of the plugin's grants or a folder inside one (a
	// read-write mount inside a read-write grant); it is opened through
	// the grant's handle, never by path. None: no filesystem.
	Mounts []abi.Mount
	// Callbacks receives what the guest sends its client; nil drops it.
	Callbacks Callbacks
	// Record, if set, is filled with what happened in the sandbox.
	Record *CallRecord
	// Timeout, if set, is the call's time limit instead of the plugin's
	// (a task's own limit, see package tasks).
	Timeout time.Duration
}

// Limit is the time limit of a call with options co: co.Timeout if set,
// else the plugin's.
func (p *Plugin) Limit(co CallOptions) time.Duration {
	if co.Timeout > 0 {
		return co.Timeout
	}
	return p.cfg.Timeout
}

// Invoke runs export in a fresh instance with input, under the plugin's time
// limit and concurrency bound, and returns the guest's output. A non-nil
// *Error describes any failure; the output is then nil. It is InvokeWith
// with no options: no folders, nowhere to report.
func (p *Plugin) Invoke(ctx context.Context, export string, input []byte) (out []byte, cerr *Error) {
	return p.InvokeWith(ctx, export, input, CallOptions{})
}

// InvokeWith is Invoke with the call's options. ctx carries the caller's
// cancellation (a client's cancel request or a dropped connection).
//
// A plugin loaded from cached declarations compiles at its first call,
// which waits for it (code.go); only ctx bounds that wait.
func (p *Plugin) InvokeWith(ctx context.Context, export string, input []byte, co CallOptions) (out []byte, cerr *Error) {
	if p.cfg.Remote != nil {
		return p.invokeRemote(ctx, export, input, co)
	}
	if out, cerr, ok := p.invokeInterpreted(ctx, export, input, co); ok {
		return out, cerr // the machine code is being built (tier.go)
	}
	code, cerr := p.machineCode(ctx)
	if cerr != nil {
		co.Record.note(nil, cerr, nil)
		return nil, cerr
	}
	return p.invoke(ctx, code, export, input, co)
}

// invoke is InvokeWith on the given code.
func (p *Plugin) invoke(ctx context.Context, code *compiled, export string, input []byte, co CallOptions) (out []byte, cerr *Error) {
	ctx, span := tracing.StartPluginCall(ctx, p.cfg.Name, p.digest, export)
	var o outcome
	defer func() {
		co.Record.note(out, cerr, &o)
		endSpan(span, cerr, o.cpu, o.memPeak)
	}()
	if len(input) > p.MaxInput() {
		return nil, newError(abi.ErrInputTooBig, nil,
			"the input is %s, more than this tool accepts (%s with its memory limit of %s)",
			humanBytes(uint64(len(input))), humanBytes(uint64(p.MaxInput())), humanBytes(p.cfg.MemoryLimit)).
			with("limit_bytes", p.MaxInput())
	}
	p.rt.calls.inFlight.Add(1)
	defer p.rt.calls.inFlight.Add(-1)
	callCtx, cancel := context.WithTimeout(ctx, p.Limit(co))
	defer cancel()
	for _, sem := range []struct {
		ch    chan struct{}
		scope string
		n     int
	}{{p.slots, "this tool's", p.cfg.Concurrency}, {p.rt.slots, "the server's", cap(p.rt.slots)}} {
		if !p.rt.take(sem.ch, callCtx.Done()) {
			if errors.Is(ctx.Err(), context.Canceled) {
				return nil, newError(abi.ErrCancelled, ctx.Err(), "the call was cancelled before it started")
			}
			return nil, newError(abi.ErrBusy, callCtx.Err(),
				"the tool is busy: %s %d concurrent calls were taken and none finished within the time limit", sem.scope, sem.n).
				with("concurrency", sem.n)
		}
		defer func() { <-sem.ch }()
	}

	res, rerr := p.reserve(ctx, callCtx)
	if rerr != nil {
		return nil, rerr
	}
	defer res.Release()

	out, o = p.run(callCtx, code, export, input, res, co)
	o.cancelled = errors.Is(ctx.Err(), context.Canceled)
	if e := classify(o); e != nil {
		return nil, e
	}
	if len(out) > p.cfg.MaxOutput {
		return nil, newError(abi.ErrOutputTooBig, nil, "the tool's output is %s, more than the limit of %s",
			humanBytes(uint64(len(out))), humanBytes(uint64(p.cfg.MaxOutput))).with("limit_bytes", p.cfg.MaxOutput)
	}
	return out, nil
}

// run instantiates, calls and discards one instance, its memories drawn
// from res.
func (p *Plugin) run(ctx context.Context, code *compiled, export string, input []byte, res *memalloc.Reservation, co CallOptions) (out []byte, o outcome) {
	gio := p.takeGuestIO(ctx)
	defer func() { // last: the report below reads the writers
		gio.ctx = nil
		p.ios.Put(gio)
	}()
	o.timeoutMs = p.Limit(co).Milliseconds()
	o.memLimit = p.cfg.MemoryLimit
	stdout, stderr := &gio.stdout, &gio.stderr
	mem := &memWatch{inner: res, limit: p.cfg.MemoryLimit}
	exit := &exitWatch{}
	st := &callState{cb: co.Callbacks, plugin: p, gate: gateFrom(ctx)}

	defer func() {
		if r := recover(); r != nil {
			p.hostPanic(ctx, export, r, &o)
		}
		o.stderr = stderr.String()
		o.memAtMax = mem.hitLimit() || st.growFailed.Load()
		o.memPeak = mem.peakBytes()
		if st.cpu != nil {
			o.cpu = st.cpu.Used()
		}
		o.ctxErr = ctx.Err()
		cb := co.Callbacks
		if !st.gate.commit() {
			cb = nil // an abandoned interpreted run (tier.go) tells the client nothing
		}
		p.logGuestOutput(ctx, cb, export, stdout, stderr)
	}()

	// The guest computes only while it holds a CPU slot (see cpusched).
	turn, err := p.rt.cpu.Acquire(ctx, p.cfg.Name)
	if err != nil {
		o.err = err
		return nil, o
	}
	defer turn.Release() // before the deferred report above reads Used
	st.cpu = turn

	mc := gio.mc
	if len(co.Mounts) > 0 {
		fsc, closer, err := mountFS(co.Mounts, p.cfg.Grants, p.fsRefusals(ctx))
		if err != nil {
			o.err, o.rc = hostFailure{fmt.Errorf("mounting the granted folders: %w", err)}, 1
			return nil, o
		}
		defer closer.Close() // after the instance closes (defers run last-in, first-out)
		mc = mc.WithFSConfig(fsc)
	}
	inst, ctx, err := p.newInstance(ctx, code, mc, mem, exit, st, func(c context.Context) {
		gio.ctx = c
		if code.guard != nil {
			code.guard.arm(c) // an interpreted call (tier.go), from the instance's start
		}
	})
	if err != nil {
		o.err, o.rc = err, 1
		return nil, o
	}
	defer inst.close()
	exit.arm(true)
	o.rc, out, o.err = inst.call(ctx, export, input)
	exit.arm(false)
	o.exited, o.exitCode = exit.result()
	if o.err != nil && !o.exited && ctx.Err() == nil {
		// The guest's error_set message is not the call's error when the
		// call traps; the kernel still has it. It is how AssemblyScript
		// aborts and panic hooks without stderr explain themselves.
		o.guestMsg = inst.errorMessage()
	}
	return out, o
}

// hostPanic makes a panic on the host's side of a guest call (a bug in
// mcpwasm or its libraries, recovered by the call) the call's failure, and
// logs it with its stack.
func (p *Plugin) hostPanic(ctx context.Context, export string, r any, o *outcome) {
	o.err = fmt.Errorf("host panic during call: %v", r)
	o.rc = 1
	p.rt.logger.ErrorContext(ctx, "host panic during call: a bug in mcpwasm or its libraries", "plugin", p.cfg.Name,
		"export", export, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
}

// baseModuleConfig is what every guest instance gets: real clocks, OS
// randomness (a source given, so wazero seeds none per instance), no start
// function (the runtime init runs before the first export, see hostenv),
// an anonymous module name (instances of one module run side by side), no
// environment, no arguments and no filesystem. A ModuleConfig is
// immutable: each With returns a copy, so one value serves every call.
var baseModuleConfig = wazero.NewModuleConfig().
	WithSysWalltime().
	WithSysNanotime().
	WithRandSource(rand.Reader).
	WithStartFunctions().
	WithName("")

// moduleConfig is the guest's view of the world for one call:
// baseModuleConfig, with sleeps that end with the call and captured
// output.
// A sleep runs under cur(), the running call's context once the instance
// carries its state (newInstance's setCtx), so it gives up the call's CPU
// slot.
func (p *Plugin) moduleConfig(cur func() context.Context, stdout, stderr *capWriter) wazero.ModuleConfig {
	return baseModuleConfig.
		WithNanosleep(func(ns int64) {
			ctx := cur()
			defer blocking(ctx)()
			sleepCtx(ctx, ns)
		}).
		WithStdout(stdout).
		WithStderr(stderr)
}

// guestIO is a call's guest I/O: the captured stdout and stderr, the
// context the guest's sleeps run under, and the ModuleConfig built on them.
// A ModuleConfig is immutable, so each guestIO builds its own once and a
// plugin keeps them in a pool (p.ios): building one per call cost three
// copies of wazero's config and a closure. The guest runs, and sleeps, on
// the calling goroutine, which alone reads and writes ctx.
type guestIO struct {
	stdout, stderr capWriter
	ctx            context.Context
	mc             wazero.ModuleConfig
}

// takeGuestIO returns a guestIO from the pool (or a new one), emptied, its
// sleeps under ctx until the instance's context replaces it.
func (p *Plugin) takeGuestIO(ctx context.Context) *guestIO {
	gio, _ := p.ios.Get().(*guestIO)
	if gio == nil {
		gio = &guestIO{stdout: capWriter{max: guestOutputCap}, stderr: capWriter{max: guestOutputCap}}
		gio.mc = p.moduleConfig(func() context.Context { return gio.ctx }, &gio.stdout, &gio.stderr)
	}
	gio.stdout.reset()
	gio.stderr.reset()
	gio.ctx = ctx
	return gio
}

// sleepCtx sleeps ns nanoseconds or until ctx ends, whichever comes first.
// A negative ns would be a sleep too long to represent: it lasts until ctx
// ends, never returns at once, so a loop of such sleeps cannot spin the CPU
// (wazero itself skips negative poll_oneoff timeouts; the rewrite clamps
// them to the longest positive one, see wasmbin/instrument_sleep.go). Every
// call context has a deadline.
func sleepCtx(ctx context.Context, ns int64) {
	if ns < 0 {
		<-ctx.Done()
		return
	}
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// logGuestOutput writes what the guest printed to the server log, and sends
// it to the client as debug-level log messages (one per line, counted
// against the call's log limit, so a flood is cut off).
func (p *Plugin) logGuestOutput(ctx context.Context, cb Callbacks, export string, stdout, stderr *capWriter) {
	for _, s := range []struct {
		name string
		w    *capWriter
	}{{"stdout", stdout}, {"stderr", stderr}} {
		if len(s.w.buf) == 0 && s.w.dropped == 0 {
			continue
		}
		text := strings.TrimRight(s.w.String(), "\n")
		p.rt.logger.DebugContext(ctx, "guest output", "plugin", p.cfg.Name, "export", export, "stream", s.name,
			"text", truncate(text, 4000), "dropped_bytes", s.w.dropped)
		if cb == nil {
			continue
		}
		sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		for _, line := range strings.Split(text, "\n") {
			payload, _ := json.Marshal(map[string]string{"level": "debug", "logger": p.cfg.Name + "/" + s.name, "data": truncate(line, 2000)})
			if cb.Log(sendCtx, payload) != nil {
				break
			}
		}
		cancel()
	}
}

func sortStrings(s []string) []string {
	sort.Strings(s)
	return s
}

// endSpan ends a plugin.call span (nil: none) with the call's outcome: ok,
// or cerr's category and message.
func endSpan(span *tracing.Span, cerr *Error, cpu time.Duration, memPeak uint64) {
	oc, msg := "ok", ""
	if cerr != nil {
		oc, msg = string(cerr.Category), cerr.Message
	}
	span.EndPluginCall(oc, cpu, memPeak, msg)
}
