// Package isolate runs a plugin in a worker process of its own: the same
// mcpwasm binary, started again with a hidden subcommand over an inherited
// socket pair. The worker confines itself (Landlock, seccomp, no_new_privs;
// host/confine) to what its one plugin was granted before it reads or runs
// any of the plugin's code, so a guest that escaped wazero holds that
// plugin's grants and nothing else: not the config, the tokens, the state
// key, the audit log, or another plugin's folders, ports or secrets.
//
// A Worker is a plugin.Remote: set it as plugin.Config.Remote and the
// plugin's calls go to the worker. The server keeps the worker's deadline
// (a call past its limit plus a grace is answered timeout and the worker
// SIGKILLed and restarted) and restarts a worker that crashed, with
// backoff, stopping a crash loop.
//
// The protocol (internal/frame, protocol.go) is length-prefixed frames
// with a cap; the server treats everything a worker sends as hostile.
package isolate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/isolate/internal/frame"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// Subcommand is the hidden mcpwasm subcommand that runs a worker.
const Subcommand = "__isolate-worker"

// Options configure a Worker.
type Options struct {
	// Config is the plugin as the server would load it in process.
	Config plugin.Config
	// Exe is the mcpwasm binary. Default: os.Executable().
	Exe string
	// Args are the worker's arguments after Exe. Default: [Subcommand].
	Args []string
	// Env is the worker's whole environment. Default: none at all (the
	// server's environment holds other plugins' secrets).
	Env []string
	// CacheDir is the server's compile cache folder ("off": none); each
	// worker uses a folder of its own under it.
	CacheDir string
	// Confine is how hard the worker insists on confining itself.
	// Default confine.Auto. Off is for the escape probes' control only.
	Confine confine.Mode
	// Grace is how long past a call's limit the worker may take to answer
	// before it is killed. Default: a twentieth of the limit, at least 50ms
	// (a restart costs a few milliseconds; docs/performance.md).
	Grace time.Duration
	// DataLimit is the kernel's bound on the worker's writable memory
	// (RLIMIT_DATA): linear memories and the Go heap. Default:
	// DefaultDataLimit for the plugin's limits; negative: none.
	DataLimit int64
	// Launcher starts the worker process when the server can no longer
	// exec (it is confined): see Launcher. Nil: exec directly.
	Launcher *Launcher
	// Logger receives starts, crashes and restarts. Nil discards them.
	Logger *slog.Logger
	// LogLevel is the worker's own log level.
	LogLevel slog.Level
}

// DataLimit is the default kernel bound on a worker's writable memory
// for a plugin's limits: every call at once with its guest memory and its
// kernel memory at their limit (each may reach memoryLimit), and 512 MiB
// for the Go runtime and the compiler.
func DefaultDataLimit(memoryLimit uint64, concurrency int) uint64 {
	if memoryLimit == 0 {
		memoryLimit = plugin.DefaultMemoryLimit
	}
	if concurrency <= 0 {
		concurrency = plugin.DefaultConcurrency
	}
	return 2*memoryLimit*uint64(concurrency) + 512<<20
}

// Crash loop bounds: more than crashLimit crashes within crashWindow stop
// restarts for crashPause.
const (
	crashLimit  = 5
	crashWindow = 30 * time.Second
	crashPause  = time.Minute
	maxBackoff  = 5 * time.Second
)

// Worker is one plugin's worker process, restarted when it dies. It is
// safe for concurrent use.
type Worker struct {
	opts   Options
	digest string
	logger *slog.Logger
	nextID atomic.Uint64

	mu          sync.Mutex
	cur         *proc
	starting    chan struct{} // closed when the start under way ends
	startErr    error
	crashes     []time.Time
	brokenUntil time.Time
	closed      bool
	starts      int
	// check and checkWriteDir: a worker started by Check
	check         bool
	checkWriteDir string
	calls         sync.WaitGroup
}

// New returns a Worker for opts.Config; Start starts it.
func New(opts Options) *Worker {
	if opts.Confine == "" {
		opts.Confine = confine.Auto
	}
	if opts.Args == nil {
		opts.Args = []string{Subcommand}
	}
	sum := sha256.Sum256(opts.Config.Wasm)
	w := &Worker{opts: opts, digest: hex.EncodeToString(sum[:]), logger: opts.Logger}
	if w.logger == nil {
		w.logger = slog.New(slog.DiscardHandler)
	}
	return w
}

// Start starts the worker and waits until it has loaded the plugin
// (plugin.Remote).
func (w *Worker) Start(ctx context.Context) (int, error) {
	p, cerr := w.running(ctx)
	if cerr != nil {
		return 0, cerr
	}
	return p.abi, nil
}

// Stats describe a Worker.
type Stats struct {
	Pid      int    // the running worker's process id, 0 if none
	Starts   int    // processes started
	Crashes  int    // crashes within the crash window
	Confined string // what the worker's confinement enforced
	// DataLimit is the running worker's RLIMIT_DATA (0: none).
	DataLimit uint64
}

// Stats returns the worker's figures.
func (w *Worker) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := Stats{Starts: w.starts, Crashes: len(w.crashes)}
	if w.cur != nil && !w.cur.isDead() {
		s.Pid, s.Confined, s.DataLimit = w.cur.h.pid(), w.cur.confined, w.cur.dataLimit
	}
	return s
}

// Invoke runs a call in the worker (plugin.Remote).
func (w *Worker) Invoke(ctx context.Context, export string, input []byte, co plugin.CallOptions) ([]byte, *plugin.Error) {
	return w.do(ctx, kindCall, export, input, co)
}

// List runs a list export in the worker (plugin.Remote).
func (w *Worker) List(ctx context.Context, export string, input []byte) ([]byte, *plugin.Error) {
	return w.do(ctx, kindList, export, input, plugin.CallOptions{})
}

// limit is a call's time limit and grace.
func (w *Worker) limit(co plugin.CallOptions) (time.Duration, time.Duration) {
	limit := co.Timeout
	if limit <= 0 {
		limit = w.opts.Config.Timeout
	}
	if limit <= 0 {
		limit = plugin.DefaultTimeout
	}
	grace := w.opts.Grace
	if grace <= 0 {
		grace = max(50*time.Millisecond, limit/20)
	}
	return limit, grace
}

// do sends one call and waits for its answer, the call's deadline plus
// grace (then the worker is killed), or the worker's death.
func (w *Worker) do(ctx context.Context, kind byte, export string, input []byte, co plugin.CallOptions) ([]byte, *plugin.Error) {
	w.calls.Add(1)
	defer w.calls.Done()
	limit, grace := w.limit(co)
	// Waiting for a worker to start (a compile, after a crash) does not
	// count against the call's limit, as waiting for the code does not in
	// process: the clock starts when the call is sent.
	p, cerr := w.running(ctx)
	if cerr != nil {
		return nil, cerr
	}
	id := w.nextID.Add(1)
	timer := time.NewTimer(limit + grace)
	defer timer.Stop()
	pc, cerr := p.send(ctx, id, kind, callMsg{Export: export, Mounts: co.Mounts, TimeoutMs: co.Timeout.Milliseconds(), Trace: tracing.Carrier(ctx)}, input, co.Callbacks)
	if cerr != nil {
		return nil, cerr
	}
	done := ctx.Done()
	for {
		select {
		case r := <-pc.ch:
			if co.Record != nil {
				co.Record.CPU, co.Record.MemoryPeak = r.rec.CPU, r.rec.MemoryPeak
			}
			return r.out, r.err
		case <-done:
			// As in process, the caller is answered now; the worker
			// stops the guest.
			p.cancel(id)
			p.forget(id)
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, &plugin.Error{Category: abi.ErrTimeout, Message: "the request's deadline passed before the tool finished", Err: ctx.Err()}
			}
			return nil, &plugin.Error{Category: abi.ErrCancelled, Message: "the call was cancelled by the client", Err: ctx.Err()}
		case <-timer.C:
			p.kill(fmt.Sprintf("a call to %s ran %s past its time limit of %s", export, grace, limit))
			return nil, &plugin.Error{Category: abi.ErrTimeout,
				Message: fmt.Sprintf("the tool did not finish within its time limit of %s; its worker process was stopped and is restarted", limit),
				Details: map[string]any{"limit_ms": limit.Milliseconds(), "worker_killed": true}}
		}
	}
}

// running returns the running worker, starting one (after the backoff a
// recent crash calls for) if there is none.
func (w *Worker) running(ctx context.Context) (*proc, *plugin.Error) {
	waited := false
	for {
		w.mu.Lock()
		switch {
		case w.closed:
			w.mu.Unlock()
			return nil, &plugin.Error{Category: abi.ErrHost, Message: "the plugin was unloaded"}
		case w.cur != nil && !w.cur.isDead():
			p := w.cur
			w.mu.Unlock()
			return p, nil
		case waited && w.startErr != nil:
			err := w.startErr
			w.mu.Unlock()
			return nil, &plugin.Error{Category: abi.ErrWorkerCrashed, Message: "the plugin's worker process could not start: " + err.Error(), Err: err}
		case time.Now().Before(w.brokenUntil):
			until := w.brokenUntil
			w.mu.Unlock()
			return nil, &plugin.Error{Category: abi.ErrWorkerCrashed,
				Message: fmt.Sprintf("the plugin's worker process crashed %d times within %s; it is not restarted before %s", crashLimit, crashWindow, until.UTC().Format(time.TimeOnly)),
				Details: map[string]any{"crash_loop": true}}
		}
		if w.starting == nil {
			w.starting = make(chan struct{})
			go w.start(w.starting, w.backoffLocked())
		}
		ch := w.starting
		w.mu.Unlock()
		select {
		case <-ch:
			waited = true
		case <-ctx.Done():
			return nil, &plugin.Error{Category: abi.ErrCancelled, Message: "the call ended while the plugin's worker process was starting", Err: ctx.Err()}
		}
	}
}

// backoffLocked is how long to wait before the next start: nothing after
// the first crash (a crash costs one call), then doubling from 100ms.
func (w *Worker) backoffLocked() time.Duration {
	n := len(w.crashes)
	if n <= 1 {
		return 0
	}
	return min(maxBackoff, 100*time.Millisecond<<(n-2))
}

// start starts a process after delay and makes it current; one started
// after Close is stopped at once.
func (w *Worker) start(done chan struct{}, delay time.Duration) {
	time.Sleep(delay)
	t0 := time.Now()
	p, err := w.launch()
	w.mu.Lock()
	w.starting = nil
	w.startErr = err
	w.starts++
	var late *proc
	switch {
	case err != nil:
		w.logger.Error("plugin worker failed to start", "plugin", w.opts.Config.Name, "err", err)
		w.crashedLocked()
	case w.closed:
		late = p
	default:
		w.cur = p
		w.logger.Debug("plugin worker ready", "plugin", w.opts.Config.Name, "pid", p.h.pid(), "ms", time.Since(t0).Milliseconds(), "confined", p.confined)
	}
	w.mu.Unlock()
	if late != nil {
		late.close(time.Second)
	}
	close(done)
}

// died is told by a process that it died, why, and whether the server
// killed it (a deadline) rather than it crashing.
func (w *Worker) died(p *proc, why string, killed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur == p {
		w.cur = nil
	}
	if w.closed {
		return
	}
	if !killed {
		w.logger.Error("plugin worker crashed", "plugin", w.opts.Config.Name, "pid", p.h.pid(), "why", why)
		w.crashedLocked()
	} else {
		w.logger.Warn("plugin worker killed", "plugin", w.opts.Config.Name, "pid", p.h.pid(), "why", why)
	}
	if w.starting == nil && !time.Now().Before(w.brokenUntil) {
		w.starting = make(chan struct{})
		go w.start(w.starting, w.backoffLocked())
	}
}

// crashedLocked counts a crash; past the limit the worker is left down
// for crashPause, and that is reported.
func (w *Worker) crashedLocked() {
	now := time.Now()
	keep := w.crashes[:0]
	for _, t := range w.crashes {
		if now.Sub(t) < crashWindow {
			keep = append(keep, t)
		}
	}
	w.crashes = append(keep, now)
	if len(w.crashes) >= crashLimit {
		w.brokenUntil = now.Add(crashPause)
		w.crashes = w.crashes[:0]
		w.logger.Error("plugin worker is crash looping: not restarted for a while", "plugin", w.opts.Config.Name,
			"crashes", crashLimit, "within", crashWindow.String(), "pause", crashPause.String())
	}
}

// Close drains the worker (the calls in flight end, each bounded by its
// limit and grace), then stops it (plugin.Remote).
func (w *Worker) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	w.calls.Wait()
	w.mu.Lock()
	p, starting := w.cur, w.starting
	w.cur = nil
	w.mu.Unlock()
	if starting != nil {
		<-starting // a start under way stops what it started
	}
	if p != nil {
		p.close(2 * time.Second)
	}
	return nil
}

// exe is the binary to start.
func (w *Worker) exe() (string, error) {
	if w.opts.Exe != "" {
		return w.opts.Exe, nil
	}
	return os.Executable()
}

// Probe has the worker act as if its guest had escaped wazero and try what
// t names; each result is the kernel's answer. Only a worker built with
// the isolateprobe tag makes the attempts (ProbesBuilt).
func (w *Worker) Probe(ctx context.Context, t ProbeTargets) ([]ProbeResult, error) {
	p, cerr := w.running(ctx)
	if cerr != nil {
		return nil, cerr
	}
	id := w.nextID.Add(1)
	pc := &pendingCall{ctx: ctx, ch: make(chan result, 1)}
	p.mu.Lock()
	p.pending[id] = pc
	p.mu.Unlock()
	if err := p.fw.Write(frame.Frame{Kind: kindProbe, ID: id, Payload: mustJSON(t)}); err != nil {
		return nil, err
	}
	select {
	case r := <-pc.ch:
		if r.err != nil {
			return nil, r.err
		}
		var out []ProbeResult
		return out, json.Unmarshal(r.out, &out)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
