package plugin

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

// A plugin's machine code is built when it is first needed, not at load
// (RATIONALE.md, "The load path"):
//
//   - Warm start (declarations cached): Load reads nothing but the cache
//     entry; the first call compiles (from wazero's file cache, which holds
//     the machine code) and waits for it.
//   - Cold start: Load checks the module and lists it through wazero's
//     interpreter (the lister), which needs no machine code, all reads on
//     one instance (listing.go), without interruption points: a function
//     listener checks the deadline and bounds the stack (listguard.go);
//     the build adds them. Once the
//     registry has read the lists (KeepDeclarations) the compiler runs in
//     the background, in the build queue's order (buildqueue.go). A call
//     arriving first runs on the lister's code (tier.go) and makes its
//     plugin's build urgent; the lister is dropped once the machine code
//     is built.
//
// Waiting for the code does not count against a call's time limit, which
// bounds the guest's run: only the caller's own context ends the wait.

// code is the part of a Plugin that builds and holds its machine code and
// its load-time declarations.
type code struct {
	codeMu     sync.Mutex
	compiled   *compiled // the compiler's code, once built
	compileErr error
	compiling  chan struct{} // closed when the build ends; nil before it starts
	ticket     *buildTicket  // the build's place in the Runtime's queue, once started
	closed     bool
	prep       []byte // the prepared module, kept from load until the build (cold start)
	// raw is the checked module without interruption points, kept from a
	// cold load that listed it (listguard.go) until the build adds them.
	raw []byte

	listerMu sync.RWMutex
	lister   *compiled  // the interpreter's, from a cold load until the machine code is built
	guard    *listGuard // the lister's checks, when it runs the module without interruption points
	// kept says the declarations were read and kept: the lister now serves
	// calls (tier.go), each in a fresh instance, no more list reads.
	kept       atomic.Bool
	interpSlot chan struct{} // one guarded interpreted call at a time (tier.go)

	listInstMu   sync.Mutex
	listInst     *listInstance // the lister's instance all load-time reads share (listing.go)
	listInstLive atomic.Bool   // listInst is set

	decl      *declarations // read from the cache (warm start)
	recMu     sync.Mutex
	recording *declarations // being read from the guest (cold start)
}

// loadCounts are the Runtime's counters behind LoadStats.
type loadCounts struct {
	rewrites, prepHits, declHits, compiles, listers, listInstances atomic.Int64
	interpreted, abandoned                                         atomic.Int64
}

// LoadStats counts what loads cost since the Runtime started.
type LoadStats struct {
	// Rewrites counts modules prepared (checked and rewritten with
	// interruption points); PreparedHits those taken from the load cache.
	Rewrites, PreparedHits int
	// DeclarationHits counts plugins whose declarations came from the load
	// cache: loaded without running any guest code.
	DeclarationHits int
	// Compiles counts plugins given machine code (wazero's compiler, from
	// its cache or not); Listers those compiled for wazero's interpreter to
	// read their declarations.
	Compiles, Listers int
	// ListInstances counts the lister instances started to read
	// declarations (listing.go): one per cold load, unless a read failed.
	ListInstances int
	// Interpreted counts calls run on the lister's code while the machine
	// code was being built (tier.go); Abandoned those of them given up for
	// the machine code once it was ready, and run again on it.
	Interpreted, Abandoned int
}

// LoadStats reports what loads have cost so far.
func (rt *Runtime) LoadStats() LoadStats {
	return LoadStats{Rewrites: int(rt.loads.rewrites.Load()), PreparedHits: int(rt.loads.prepHits.Load()),
		DeclarationHits: int(rt.loads.declHits.Load()), Compiles: int(rt.loads.compiles.Load()),
		Listers: int(rt.loads.listers.Load()), ListInstances: int(rt.loads.listInstances.Load()),
		Interpreted: int(rt.loads.interpreted.Load()), Abandoned: int(rt.loads.abandoned.Load())}
}

var errClosed = errors.New("the plugin is closed")

// compile builds wasm for this plugin: with wazero's compiler (sharing the
// compilation cache; the caller has the build queue's turn), or its
// interpreter.
func (p *Plugin) compile(ctx context.Context, wasm []byte, interpreter bool) (*compiled, error) {
	return p.compileGuarded(ctx, wasm, interpreter, nil)
}

// compileGuarded is compile; with a guard (interpreter only) wasm is the
// module without interruption points, run under the guard's checks and
// wazero's own at loop headers (listguard.go).
func (p *Plugin) compileGuarded(ctx context.Context, wasm []byte, interpreter bool, g *listGuard) (*compiled, error) {
	rc := p.rt.runtimeConfig(p.cfg.MemoryLimit, p.cfg.Interrupts)
	if interpreter {
		// No compilation cache: the interpreter does not use it.
		rc = wazero.NewRuntimeConfigInterpreter().
			WithCloseOnContextDone(p.cfg.Interrupts == InterruptEngine || g != nil).
			WithMemoryLimitPages(runtimePages(p.cfg.MemoryLimit))
		p.rt.loads.listers.Add(1)
		if g != nil {
			ctx = experimental.WithFunctionListenerFactory(ctx, g)
		}
	} else {
		// Builds take turns in the Runtime's queue (buildqueue.go), which
		// never builds the same bytes twice at once.
		p.rt.loads.compiles.Add(1)
	}
	c, err := newCompiled(ctx, rc, wasm, p.needsWASI)
	if err == nil && g != nil {
		if err = g.resolve(); err != nil {
			c.Close(context.Background())
			return nil, err
		}
		c.guard = g
	}
	return c, err
}

// startCompile starts building the machine code unless it is built or
// under way, and returns a channel closed when it is done. The build
// waits for its turn in the Runtime's queue (buildqueue.go): a background
// build behind the others, smallest first, and leaving a core to the
// server; a call's build (background false) before every background one.
func (p *Plugin) startCompile(background bool) <-chan struct{} {
	p.codeMu.Lock()
	defer p.codeMu.Unlock()
	if p.compiling != nil {
		return p.compiling
	}
	done := make(chan struct{})
	p.compiling = done
	if p.closed {
		p.compileErr = errClosed
		close(done)
		return done
	}
	wasm, raw := p.prep, p.raw
	t := &buildTicket{key: p.digest, size: len(p.cfg.Wasm), name: p.cfg.Name, urgent: !background, allCores: !background}
	p.ticket = t
	p.rt.building.Add(1)
	p.rt.builds.Add(1)
	p.rt.queue.enqueue(t)
	go func() {
		defer p.rt.building.Done()
		<-t.turn
		var c *compiled
		err := errClosed
		if !t.cancelled {
			c, err = p.build(wasm, raw, p.rt.queue.usesAllCores(t))
			p.rt.queue.done(t)
		}
		p.codeMu.Lock()
		p.compiled, p.compileErr, p.prep, p.raw = c, err, nil, nil
		p.codeMu.Unlock()
		close(done)
		// Calls interpreted meanwhile (tier.go) were abandoned for the
		// machine code if they could be; the others end within their limit.
		p.dropLister()
		if p.rt.builds.Add(-1) == 0 {
			// The compiler leaves hundreds of MiB of garbage behind (the
			// machine code itself lives outside the Go heap): with the 400%
			// GC target it would stay resident until the heap grew five
			// times over. After the last build, give it back.
			debug.FreeOSMemory()
		}
		if err != nil && !t.cancelled {
			p.rt.logger.Error("plugin failed to compile", "plugin", p.cfg.Name, "source", p.cfg.Source, "err", err)
		}
	}()
	return done
}

// build compiles the prepared module: wasm, or raw with its interruption
// points added now, or the load cache's copy, or one prepared anew from
// the plugin's bytes. allCores: compile on every core, not leaving one to
// the server.
func (p *Plugin) build(wasm, raw []byte, allCores bool) (*compiled, error) {
	if wasm == nil && raw != nil {
		prep, err := p.rt.instrument(p.prepKey, raw, p.Module, &p.cfg)
		if err != nil {
			return nil, err
		}
		wasm = prep.Wasm
	}
	if wasm == nil {
		prep, err := p.rt.prepared(p.prepKey, &p.cfg)
		if err != nil {
			return nil, err
		}
		wasm = prep.Wasm
	}
	workers := runtime.GOMAXPROCS(0)
	if !allCores {
		workers = max(1, workers-1)
	}
	return p.compile(experimental.WithCompilationWorkers(context.Background(), workers), wasm, false)
}

// machineCode waits for the plugin's machine code, building it if needed,
// until ctx ends.
func (p *Plugin) machineCode(ctx context.Context) (*compiled, *Error) {
	if p.listInstLive.Load() {
		p.endListing() // a compiled call: the load-time reads are over
	}
	done := p.startCompile(false)
	p.promoteBuild(true) // a background build still waiting: now
	select {
	case <-done:
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, newError(abi.ErrCancelled, ctx.Err(), "the call was cancelled before it started (the plugin was still compiling)")
		}
		return nil, newError(abi.ErrTimeout, ctx.Err(), "the plugin was still compiling when the request's deadline passed")
	}
	p.codeMu.Lock()
	defer p.codeMu.Unlock()
	if p.compileErr != nil {
		return nil, newError(abi.ErrHost, p.compileErr, "the plugin failed to compile: %v", p.compileErr)
	}
	return p.compiled, nil
}

// DeclarationsCached reports whether Load found this plugin's
// declarations in the load cache: it was loaded without running it.
func (p *Plugin) DeclarationsCached() bool { return p.decl != nil }

// Compile builds the plugin's machine code now, if it is not built yet,
// and waits for it until ctx ends. Calls do it themselves; this is for
// callers that must know the plugin compiles (validate) or measure a call
// alone.
func (p *Plugin) Compile(ctx context.Context) error {
	if _, cerr := p.machineCode(ctx); cerr != nil {
		return cerr
	}
	return nil
}

// List runs a list export (or mcpwasm_abi_version) at load: its answer comes
// from the load cache when this plugin's declarations are cached for this
// input, else from the guest, and is recorded for KeepDeclarations. Answers
// a plugin gives after saying its lists changed are read with Invoke.
func (p *Plugin) List(ctx context.Context, export string, input []byte) ([]byte, *Error) {
	k := listKey(export, input)
	if p.decl != nil {
		if out, ok := p.decl.Lists[k]; ok {
			return append([]byte(nil), out...), nil
		}
	}
	var out []byte
	var cerr *Error
	if p.cfg.Remote != nil {
		out, cerr = p.listRemote(ctx, export, input)
	} else {
		out, cerr = p.listLocal(ctx, export, input)
	}
	if cerr == nil {
		p.recMu.Lock()
		if p.recording != nil {
			p.recording.Lists[k] = append([]byte(nil), out...)
		}
		p.recMu.Unlock()
	}
	return out, cerr
}

// listLocal reads a list export from the guest: through the lister's
// interpreted instance while it lives (and the declarations are not yet
// kept), else as a call.
func (p *Plugin) listLocal(ctx context.Context, export string, input []byte) (out []byte, cerr *Error) {
	p.listerMu.RLock()
	if p.lister != nil && !p.kept.Load() {
		out, _, cerr = p.listRead(ctx, export, input)
		p.listerMu.RUnlock()
		if cerr != nil && cerr.Category == abi.ErrTimeout {
			// The interpreter is slower than machine code: what fits in
			// the time limit compiled must not fail for being listed first.
			p.rt.logger.Debug("listing through the interpreter ran out of time; compiling", "plugin", p.cfg.Name, "export", export)
			p.dropLister()
			out, cerr = p.Invoke(ctx, export, input)
		}
	} else {
		p.listerMu.RUnlock()
		out, cerr = p.Invoke(ctx, export, input)
	}
	return out, cerr
}

// KeepDeclarations says the plugin's declarations were read and accepted:
// they are written to the load cache (if they came from the guest) and the
// lister's shared instance is closed. The interpreter's code stays until
// the machine code is built: it answers the calls that come first
// (tier.go).
func (p *Plugin) KeepDeclarations() {
	p.recMu.Lock()
	rec := p.recording
	p.recording = nil
	p.recMu.Unlock()
	if rec == nil {
		return
	}
	if err := p.rt.lc.put("decl", p.declKey, rec); err != nil {
		p.rt.logger.Warn("could not write to the load cache", "plugin", p.cfg.Name, "err", err)
	}
	p.kept.Store(true)
	p.endListing()
}

// CompileIfCold starts building the machine code in the background if
// this load had to run the guest to read its declarations (code.go): the
// compilation cache then likely lacks its code too, and building it now
// makes the first call and the next start fast. A plugin loaded from
// cached declarations compiles at its first call instead, which keeps an
// idle server small. Call it once the initial load is over: compiling
// takes the CPU the other loads need.
func (p *Plugin) CompileIfCold() {
	p.codeMu.Lock()
	cold := p.prep != nil || p.raw != nil
	p.codeMu.Unlock()
	if cold {
		p.startCompile(true)
	}
}

// dropLister closes the interpreter's code once no list runs on it.
func (p *Plugin) dropLister() {
	p.listerMu.Lock()
	l := p.lister
	p.lister = nil
	p.listerMu.Unlock()
	p.endListing() // no read runs: each holds listerMu
	if l != nil {
		l.Close(context.Background())
	}
}

// closeCode waits for a build under way and closes whatever code the
// plugin has.
func (p *Plugin) closeCode(ctx context.Context) error {
	p.dropLister()
	p.codeMu.Lock()
	p.closed = true
	done, t := p.compiling, p.ticket
	p.codeMu.Unlock()
	if done == nil {
		return nil
	}
	p.rt.queue.cancel(t) // not started: not run

	<-done
	p.codeMu.Lock()
	c := p.compiled
	p.compiled = nil
	p.codeMu.Unlock()
	if c == nil {
		return nil
	}
	return c.Close(ctx)
}
