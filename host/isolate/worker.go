package isolate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/isolate/internal/frame"
	"github.com/mcpwasm/mcpwasm/host/netguard"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"golang.org/x/sys/unix"
)

// ServeWorker is a worker's whole life (the hidden subcommand): it reads
// its plugin's spec and bytes from conn, confines itself, and only then
// loads the plugin and serves its calls, until conn closes. Logs go to
// logger (the worker's stderr, never conn).
func ServeWorker(conn io.ReadWriteCloser, logger *slog.Logger) error {
	defer conn.Close()
	r := frame.NewReader(conn, workerFrameCap)
	w := frame.NewWriter(conn, workerFrameCap)
	sp, wasm, err := readSpec(r)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		_ = w.Write(frame.Frame{Kind: kindReady, Payload: mustJSON(readyMsg{Error: err.Error()})})
		return err
	}
	if sp.CacheDir != "off" && sp.CacheDir != "" {
		if err := os.MkdirAll(sp.CacheDir, 0o700); err != nil {
			return fail(fmt.Errorf("worker cache %s: %w", sp.CacheDir, err))
		}
	}
	if sp.Check {
		return checkWorker(sp, w)
	}
	// The wall goes up before any plugin code is read or run.
	rep, err := confine.Apply(workerPolicy(sp), sp.Confine)
	if err != nil {
		return fail(err)
	}
	if sp.DataLimit > 0 && !raceEnabled { // the race detector's shadow memory would not fit
		// The kernel's bound on the worker's writable memory: every linear
		// memory grows by making reserved pages writable, and the Go heap
		// by mapping them so; past it both fail (ENOMEM).
		lim := unix.Rlimit{Cur: sp.DataLimit, Max: sp.DataLimit}
		if err := unix.Setrlimit(unix.RLIMIT_DATA, &lim); err != nil {
			return fail(fmt.Errorf("RLIMIT_DATA: %w", err))
		}
	}
	p, rt, err := loadPlugin(sp, wasm, logger)
	if err != nil {
		return fail(err)
	}
	defer rt.Close(context.Background())
	defer p.Close(context.Background())
	ready := readyMsg{ABIVersion: p.ABIVersion, Confined: rep.String(), Missing: rep.Missing}
	if !raceEnabled {
		ready.DataLimit = sp.DataLimit
	}
	if err := w.Write(frame.Frame{Kind: kindReady, Payload: mustJSON(ready)}); err != nil {
		return err
	}
	s := &session{p: p, w: w, calls: map[uint64]context.CancelFunc{}, waiting: map[uint64]chan []byte{}}
	return s.serve(r)
}

// checkWorker confines the worker as it would for its plugin, makes the
// attempts validate --confine makes in the server (host/confine.Check),
// reports them and ends: no plugin is loaded.
func checkWorker(sp spec, w *frame.Writer) error {
	pol := workerPolicy(sp)
	check, err := confine.PrepareCheck(pol, sp.CheckWriteDir)
	if err != nil {
		_ = w.Write(frame.Frame{Kind: kindReady, Payload: mustJSON(readyMsg{Error: err.Error()})})
		return err
	}
	defer check.Close()
	rep, err := confine.Apply(pol, sp.Confine)
	if err != nil {
		_ = w.Write(frame.Frame{Kind: kindReady, Payload: mustJSON(readyMsg{Error: err.Error()})})
		return err
	}
	check.Report = rep
	r := readyMsg{Confined: rep.String(), Missing: rep.Missing, Attempts: check.Run()}
	return w.Write(frame.Frame{Kind: kindReady, Payload: mustJSON(r)})
}

// readSpec reads the spec and the module, and checks the module's digest.
func readSpec(r *frame.Reader) (spec, []byte, error) {
	var sp spec
	f, err := r.Read()
	if err != nil {
		return sp, nil, fmt.Errorf("reading the spec: %w", err)
	}
	if f.Kind != kindSpec {
		return sp, nil, fmt.Errorf("first frame is of kind %d, want the spec", f.Kind)
	}
	if err := json.Unmarshal(f.Payload, &sp); err != nil {
		return sp, nil, fmt.Errorf("spec: %w", err)
	}
	if f, err = r.Read(); err != nil || f.Kind != kindWasm {
		return sp, nil, fmt.Errorf("reading the module: kind %d, %v", f.Kind, err)
	}
	sum := sha256.Sum256(f.Payload)
	if got := hex.EncodeToString(sum[:]); got != sp.SHA256 {
		return sp, nil, fmt.Errorf("module digest %s, the spec says %s", got, sp.SHA256)
	}
	return sp, f.Payload, nil
}

// workerPolicy is what a worker may still do once confined: its grants
// (read-only where granted so), its own compile cache, and TCP connect to
// its network grants' ports (and DNS, port 53, when it has any). Its
// module came over the socket: it need not read the plugin file.
func workerPolicy(sp spec) confine.Policy {
	var p confine.Policy
	for _, g := range sp.Grants {
		if g.ReadOnly {
			p.ReadOnly = append(p.ReadOnly, g.Path)
		} else {
			p.ReadWrite = append(p.ReadWrite, g.Path)
		}
	}
	if sp.CacheDir != "off" && sp.CacheDir != "" {
		p.ReadWrite = append(p.ReadWrite, sp.CacheDir)
	}
	p.ConnectTCP = grantPorts(sp.NetGrants)
	return p
}

// grantPorts lists the TCP ports network grants may reach, and 53 for
// DNS over TCP when there is any.
func grantPorts(gs []netguard.Grant) []uint16 {
	var ports []uint16
	add := func(p int) {
		if p > 0 && p < 65536 && !slices.Contains(ports, uint16(p)) {
			ports = append(ports, uint16(p))
		}
	}
	for _, g := range gs {
		for _, p := range g.ReachablePorts() {
			add(p)
		}
	}
	if len(ports) > 0 {
		add(53)
	}
	return ports
}

// loadPlugin loads the plugin in this (confined) worker.
func loadPlugin(sp spec, wasm []byte, logger *slog.Logger) (*plugin.Plugin, *plugin.Runtime, error) {
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: sp.CacheDir, Logger: logger})
	if err != nil {
		return nil, nil, err
	}
	cfg := plugin.Config{Name: sp.Name, Source: sp.Source, Wasm: wasm, SHA256: sp.SHA256, TaskModes: sp.TaskModes,
		Timeout: sp.Timeout, MemoryLimit: sp.MemoryLimit, MaxOutput: sp.MaxOutput, Concurrency: sp.Concurrency,
		GuestConfig: sp.GuestConfig, Interrupts: sp.Interrupts,
		Network: netguard.Options{Plugin: sp.Name, Grants: sp.NetGrants, Limits: sp.NetLimits, Logger: logger}}
	for _, g := range sp.Grants {
		gr, err := plugin.OpenGrant(g.Path, g.ReadOnly)
		if err != nil {
			rt.Close(context.Background())
			return nil, nil, fmt.Errorf("grant %s: %w", g.Path, err)
		}
		cfg.Grants = append(cfg.Grants, gr)
	}
	p, err := rt.Load(context.Background(), cfg)
	if err != nil {
		rt.Close(context.Background())
		return nil, nil, err
	}
	// The machine code is built before the worker says it is ready: the
	// server's clock on a call starts when the call is sent (and kills the
	// worker at the limit plus grace), so a build must not run inside a
	// call, as in process a call does not count the wait for its code.
	if err := p.Compile(context.Background()); err != nil {
		rt.Close(context.Background())
		return nil, nil, fmt.Errorf("compile: %w", err)
	}
	return p, rt, nil
}

// session is a worker's side of the protocol once its plugin is loaded.
type session struct {
	p       *plugin.Plugin
	w       *frame.Writer
	mu      sync.Mutex
	calls   map[uint64]context.CancelFunc // calls running, by id
	waiting map[uint64]chan []byte        // callbacks waiting for a reply, by id
	nextCB  atomic.Uint64
	wg      sync.WaitGroup
}

// serve reads frames until the server closes the socket; then every call
// is cancelled and waited for.
func (s *session) serve(r *frame.Reader) error {
	base, cancelAll := context.WithCancel(context.Background())
	defer func() {
		cancelAll()
		s.wg.Wait()
	}()
	for {
		f, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch f.Kind {
		case kindCall, kindList:
			ctx, cancel := context.WithCancel(base)
			s.mu.Lock()
			s.calls[f.ID] = cancel
			s.mu.Unlock()
			s.wg.Add(1)
			go s.call(ctx, f)
		case kindCancel:
			s.mu.Lock()
			if cancel := s.calls[f.ID]; cancel != nil {
				cancel()
			}
			s.mu.Unlock()
		case kindReply:
			s.mu.Lock()
			ch := s.waiting[f.ID]
			delete(s.waiting, f.ID)
			s.mu.Unlock()
			if ch != nil {
				ch <- f.Payload
			}
		case kindProbe:
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				_ = s.w.Write(frame.Frame{Kind: kindProbed, ID: f.ID, Payload: mustJSON(runProbes(f.Payload))})
			}()
		default:
			return fmt.Errorf("unknown frame kind %d", f.Kind)
		}
	}
}

// relayTo names the call a span belongs to, in its context.
type relayTo struct {
	s    *session
	call uint64
}

type relayKey struct{}

// relayOnce sets up the span relay at the first traced call: a worker of a
// server that does not trace never turns tracing on.
var relayOnce sync.Once

// relaySpan sends a span the call made (a guest's HTTP request) to the
// server, which exports it in the caller's trace (tracing.Import).
func relaySpan(ctx context.Context, rs tracing.RelayedSpan) {
	if to, ok := ctx.Value(relayKey{}).(relayTo); ok {
		_, _ = to.s.callback(context.WithoutCancel(ctx), to.call, cbSpan, "", mustJSON(rs))
	}
}

// call runs one call and answers it.
func (s *session) call(ctx context.Context, f frame.Frame) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		if cancel := s.calls[f.ID]; cancel != nil {
			cancel()
		}
		delete(s.calls, f.ID)
		s.mu.Unlock()
	}()
	var m callMsg
	input, err := unpackJSON(f.Payload, &m)
	var out []byte
	var cerr *plugin.Error
	var rec plugin.CallRecord
	switch {
	case err != nil:
		cerr = &plugin.Error{Category: abi.ErrHost, Message: "the worker could not read the call: " + err.Error()}
	case f.Kind == kindList:
		out, cerr = s.p.List(ctx, m.Export, input)
	default:
		co := plugin.CallOptions{Mounts: m.Mounts, Callbacks: proxy{s, f.ID}, Record: &rec}
		ctx = audit.WithLog(ctx, s.auditLog(ctx, f.ID))
		if m.Trace != nil { // the caller's trace continues here (tracing.Continue)
			relayOnce.Do(func() { tracing.SetupRelay(relaySpan) })
			ctx = context.WithValue(tracing.Continue(ctx, m.Trace), relayKey{}, relayTo{s, f.ID})
		}
		if m.TimeoutMs > 0 {
			co.Timeout = msDuration(m.TimeoutMs)
		}
		out, cerr = s.p.InvokeWith(ctx, m.Export, input, co)
	}
	res := resultMsg{CPUNs: int64(rec.CPU), MemoryPeak: rec.MemoryPeak}
	if cerr != nil {
		res.Error = &wireError{Category: cerr.Category, Message: cerr.Message, Details: cerr.Details}
		out = nil
	}
	_ = s.w.Write(frame.Frame{Kind: kindResult, ID: f.ID, Payload: packJSON(res, out)})
}

// auditLog is a call's audit log in the worker: what the sandbox's
// guards record goes to the server, which writes it to the call's own.
func (s *session) auditLog(ctx context.Context, call uint64) *audit.Log {
	l := audit.New(nil, false)
	l.Observe(func(e audit.Event) {
		b, err := json.Marshal(e)
		if err == nil {
			_, _ = s.callback(ctx, call, cbAudit, "", b)
		}
	})
	return l
}

// callback hands a guest's callback to the server and waits for its
// answer, or for ctx.
func (s *session) callback(ctx context.Context, call uint64, kind, function string, payload []byte) (json.RawMessage, error) {
	id := s.nextCB.Add(1)
	ch := make(chan []byte, 1)
	s.mu.Lock()
	s.waiting[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiting, id)
		s.mu.Unlock()
	}()
	msg := callbackMsg{Call: call, Kind: kind, Function: function}
	if err := s.w.Write(frame.Frame{Kind: kindCallback, ID: id, Payload: packJSON(msg, payload)}); err != nil {
		return nil, err
	}
	select {
	case p := <-ch:
		var rep replyMsg
		raw, err := unpackJSON(p, &rep)
		switch {
		case err != nil:
			return nil, err
		case rep.HostError != nil:
			return nil, rep.HostError
		case rep.Error != "":
			return nil, errors.New(rep.Error)
		}
		return raw, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// proxy is a call's plugin.Callbacks in the worker: each goes to the
// server, which delivers it to the call's client.
type proxy struct {
	s    *session
	call uint64
}

// Progress sends a notify_progress payload to the server.
func (p proxy) Progress(ctx context.Context, payload json.RawMessage) error {
	_, err := p.s.callback(ctx, p.call, cbProgress, "", payload)
	return err
}

// Log sends a notify_logging_message payload to the server.
func (p proxy) Log(ctx context.Context, payload json.RawMessage) error {
	_, err := p.s.callback(ctx, p.call, cbLog, "", payload)
	return err
}

// Request asks the call's client, through the server.
func (p proxy) Request(ctx context.Context, function string, payload json.RawMessage) (json.RawMessage, error) {
	return p.s.callback(ctx, p.call, cbRequest, function, payload)
}

// Notify sends a notify_* host function's payload to the server.
func (p proxy) Notify(ctx context.Context, function string, payload json.RawMessage) error {
	_, err := p.s.callback(ctx, p.call, cbNotify, function, payload)
	return err
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // our own types
	}
	return b
}

// CacheRoot is the folder beside the server's compile cache that holds
// the workers' caches ("" when the server has none). The server's
// confinement, which a launcher and its workers inherit, must allow it.
func CacheRoot(serverCache string) string {
	if serverCache == "off" || serverCache == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(filepath.Clean(serverCache)), "wazero-isolated")
}

// cacheFor is the compile cache folder of a worker running the module
// with this digest: its own, so that it may write it and read no other
// plugin's code.
func cacheFor(serverCache, digest string) string {
	root := CacheRoot(serverCache)
	if root == "" {
		return "off"
	}
	return filepath.Join(root, digest[:16])
}

// WorkerMain runs a worker on the socket inherited as file descriptor 3
// and returns the process's exit code. Its logs go to stderr.
func WorkerMain() int {
	conn := os.NewFile(3, "server")
	if conn == nil {
		fmt.Fprintln(os.Stderr, "mcpwasm worker: no socket on file descriptor 3 (this subcommand is started by mcpwasm serve)")
		return 2
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := ServeWorker(conn, logger); err != nil {
		logger.Error("plugin worker stopped", "pid", os.Getpid(), "err", err)
		return 1
	}
	return 0
}
