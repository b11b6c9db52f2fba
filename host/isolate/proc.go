package isolate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/isolate/internal/frame"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"golang.org/x/sys/unix"
)

// handle is a started worker process: direct (exec) or through a Launcher.
type handle interface {
	pid() int
	kill()
	// wait blocks until the process ended and says how.
	wait() string
}

// proc is one worker process and its side of the protocol.
type proc struct {
	w         *Worker
	h         handle
	conn      net.Conn
	fw        *frame.Writer
	abi       int
	confined  string
	dataLimit uint64
	attempts  []confine.Attempt // a check worker's (Check)

	mu      sync.Mutex
	pending map[uint64]*pendingCall
	killed  bool // the server killed it (a deadline)
	dead    chan struct{}
	once    sync.Once
	cbSlots chan struct{} // callbacks being delivered at once
}

type pendingCall struct {
	ctx context.Context
	cb  plugin.Callbacks
	ch  chan result
}

type result struct {
	out []byte
	err *plugin.Error
	rec plugin.CallRecord // CPU and MemoryPeak, as the worker measured them
}

// launch starts a process, hands it its spec and module, and waits until
// it has confined itself and loaded the plugin.
func (w *Worker) launch() (*proc, error) {
	conn, theirs, err := socketPair(unix.SOCK_STREAM, "worker")
	if err != nil {
		return nil, err
	}
	defer theirs.Close()
	var h handle
	if w.opts.Launcher != nil {
		h, err = w.opts.Launcher.spawn(theirs, w.opts.Config.Name)
	} else {
		h, err = w.execDirect(theirs)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	theirs.Close()
	p := &proc{w: w, h: h, conn: conn, fw: frame.NewWriter(conn, workerFrameCap), pending: map[uint64]*pendingCall{},
		dead: make(chan struct{}), cbSlots: make(chan struct{}, 2*max(w.opts.Config.Concurrency, plugin.DefaultConcurrency)+8)}
	if err := p.handshake(); err != nil {
		h.kill()
		conn.Close()
		return nil, fmt.Errorf("%w (worker: %s)", err, h.wait())
	}
	go p.read()
	go func() { p.die(h.wait(), false) }()
	return p, nil
}

// handshake sends the spec and the module and reads the worker's answer.
func (p *proc) handshake() error {
	c := p.w.opts.Config
	sp := spec{Name: c.Name, Source: c.Source, SHA256: p.w.digest, TaskModes: c.TaskModes, Timeout: c.Timeout,
		MemoryLimit: c.MemoryLimit, MaxOutput: c.MaxOutput, Concurrency: c.Concurrency, GuestConfig: c.GuestConfig,
		NetGrants: c.Network.Grants, NetLimits: c.Network.Limits, Interrupts: c.Interrupts,
		CacheDir: cacheFor(p.w.opts.CacheDir, p.w.digest), Confine: p.w.opts.Confine, LogLevel: int(p.w.opts.LogLevel),
		Check: p.w.check, CheckWriteDir: p.w.checkWriteDir}
	switch {
	case p.w.opts.DataLimit > 0:
		sp.DataLimit = uint64(p.w.opts.DataLimit)
	case p.w.opts.DataLimit == 0:
		sp.DataLimit = DefaultDataLimit(c.MemoryLimit, c.Concurrency)
	}
	for _, g := range c.Grants {
		sp.Grants = append(sp.Grants, grantSpec{Path: g.Path, ReadOnly: g.ReadOnly})
	}
	if err := p.fw.Write(frame.Frame{Kind: kindSpec, Payload: mustJSON(sp)}); err != nil {
		return fmt.Errorf("sending the spec: %w", err)
	}
	if err := p.fw.Write(frame.Frame{Kind: kindWasm, Payload: c.Wasm}); err != nil {
		return fmt.Errorf("sending the module: %w", err)
	}
	// Loading compiles, which a cold cache makes slow; the deadline only
	// catches a worker that hangs.
	p.conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
	defer p.conn.SetReadDeadline(time.Time{})
	f, err := frame.NewReader(p.conn, 1<<20).Read()
	if err != nil {
		return fmt.Errorf("waiting for the worker to load the plugin: %w", err)
	}
	var r readyMsg
	if f.Kind != kindReady || json.Unmarshal(f.Payload, &r) != nil {
		return fmt.Errorf("the worker answered a frame of kind %d, not ready", f.Kind)
	}
	if r.Error != "" {
		return errors.New(r.Error)
	}
	p.abi, p.confined, p.dataLimit, p.attempts = r.ABIVersion, r.Confined, r.DataLimit, r.Attempts
	return nil
}

// read takes the worker's frames until it dies. A frame that breaks the
// protocol kills the worker: it is hostile or broken.
func (p *proc) read() {
	r := frame.NewReader(p.conn, serverFrameCap(p.w.opts.Config.MaxOutput))
	for {
		f, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				p.die("closed its socket", false)
			} else { // answered first, so the kill is not taken for the cause
				p.die("broke the protocol: "+err.Error(), false)
				p.h.kill()
			}
			return
		}
		switch f.Kind {
		case kindResult, kindProbed:
			p.answer(f)
		case kindCallback:
			p.callback(f)
		default:
			p.die(fmt.Sprintf("broke the protocol: a frame of kind %d", f.Kind), false)
			p.h.kill()
			return
		}
	}
}

// answer delivers a call's result.
func (p *proc) answer(f frame.Frame) {
	p.mu.Lock()
	pc := p.pending[f.ID]
	delete(p.pending, f.ID)
	p.mu.Unlock()
	if pc == nil {
		return // cancelled and answered already, or made up
	}
	var res resultMsg
	out, err := unpackJSON(f.Payload, &res)
	r := result{out: out, rec: plugin.CallRecord{CPU: time.Duration(res.CPUNs), MemoryPeak: res.MemoryPeak}}
	switch {
	case f.Kind == kindProbed:
		r.out = f.Payload
	case err != nil:
		r = result{err: &plugin.Error{Category: abi.ErrHost, Message: "the worker's answer could not be read: " + err.Error()}}
	case res.Error != nil:
		r.out, r.err = nil, &plugin.Error{Category: res.Error.Category, Message: res.Error.Message, Details: res.Error.Details}
	}
	pc.ch <- r
}

// callback delivers what a guest sends its client, on its own goroutine
// (a request may wait for the client), a bounded number at once.
func (p *proc) callback(f frame.Frame) {
	var m callbackMsg
	payload, err := unpackJSON(f.Payload, &m)
	reply := func(rep replyMsg, raw []byte) {
		_ = p.fw.Write(frame.Frame{Kind: kindReply, ID: f.ID, Payload: packJSON(rep, raw)})
	}
	if err != nil {
		reply(replyMsg{Error: "unreadable callback: " + err.Error()}, nil)
		return
	}
	p.mu.Lock()
	pc := p.pending[m.Call]
	p.mu.Unlock()
	if pc == nil {
		reply(replyMsg{Error: "no such call in flight"}, nil)
		return
	}
	select {
	case p.cbSlots <- struct{}{}:
	default:
		reply(replyMsg{Error: "too many callbacks at once"}, nil)
		return
	}
	go func() {
		defer func() { <-p.cbSlots }()
		raw, err := deliver(pc, m, payload, p.w.opts.Config.Name, p.w.digest)
		var rep replyMsg
		var he *abi.HostError
		if errors.As(err, &he) {
			rep.HostError = he
		} else if err != nil {
			rep.Error = err.Error()
		}
		reply(rep, raw)
	}()
}

// deliver runs one callback on the call's plugin.Callbacks.
func deliver(pc *pendingCall, m callbackMsg, payload []byte, name, digest string) (json.RawMessage, error) {
	switch m.Kind {
	case cbAudit:
		return nil, recordAudit(pc.ctx, payload, name, digest)
	case cbSpan:
		var rs tracing.RelayedSpan
		if err := json.Unmarshal(payload, &rs); err != nil {
			return nil, err
		}
		return nil, tracing.Import(pc.ctx, rs)
	}
	cb := pc.cb
	if cb == nil {
		if m.Kind == cbRequest {
			return nil, errors.New("this call has no client to ask")
		}
		return nil, nil
	}
	switch m.Kind {
	case cbProgress:
		return nil, cb.Progress(pc.ctx, payload)
	case cbLog:
		return nil, cb.Log(pc.ctx, payload)
	case cbNotify:
		if len(payload) == 0 {
			payload = nil
		}
		return nil, cb.Notify(pc.ctx, m.Function, payload)
	case cbRequest:
		return cb.Request(pc.ctx, m.Function, payload)
	}
	return nil, fmt.Errorf("unknown callback kind %q", m.Kind)
}

// recordAudit writes a worker's audit event to the call's audit log (and
// a filesystem refusal to its span, as in process). Only what the guards
// record is accepted (denials and network requests), always in the
// worker's own plugin's name: a hostile worker cannot write calls, or
// speak for another plugin.
func recordAudit(ctx context.Context, payload []byte, name, digest string) error {
	var e audit.Event
	if err := json.Unmarshal(payload, &e); err != nil {
		return err
	}
	if e.Kind != audit.KindDenial && e.Kind != audit.KindNet {
		return fmt.Errorf("audit events of kind %q are the server's to record", e.Kind)
	}
	e.Plugin, e.SHA256 = name, digest
	audit.FromContext(ctx).Record(e)
	if e.Kind == audit.KindDenial && e.Denial == audit.DenyFS {
		tracing.Event(ctx, "mcpwasm.fs.refused", tracing.KeyFSReason, e.Reason)
	}
	return nil
}

// send registers a call and sends it.
func (p *proc) send(ctx context.Context, id uint64, kind byte, m callMsg, input []byte, cb plugin.Callbacks) (*pendingCall, *plugin.Error) {
	pc := &pendingCall{ctx: ctx, cb: cb, ch: make(chan result, 1)}
	p.mu.Lock()
	if p.isDead() {
		p.mu.Unlock()
		return nil, crashed("the plugin's worker process died before the call was sent")
	}
	p.pending[id] = pc
	p.mu.Unlock()
	if err := p.fw.Write(frame.Frame{Kind: kind, ID: id, Payload: packJSON(m, input)}); err != nil {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
		return nil, crashed("the call could not be sent to the plugin's worker process: " + err.Error())
	}
	return pc, nil
}

// forget drops a call whose caller no longer waits.
func (p *proc) forget(id uint64) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

// cancel tells the worker a call's client gave up.
func (p *proc) cancel(id uint64) {
	_ = p.fw.Write(frame.Frame{Kind: kindCancel, ID: id})
}

func (p *proc) isDead() bool {
	select {
	case <-p.dead:
		return true
	default:
		return false
	}
}

// kill SIGKILLs the worker for a deadline; its other calls are answered
// worker_crashed, and the Worker starts another.
func (p *proc) kill(why string) {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	p.h.kill()
	p.die("killed: "+why, true)
}

// die marks the process dead once: every call still in flight is
// answered, the socket closed, and the Worker told.
func (p *proc) die(why string, killed bool) {
	p.once.Do(func() {
		p.mu.Lock()
		close(p.dead)
		killed = killed || p.killed
		pending := p.pending
		p.pending = map[uint64]*pendingCall{}
		p.mu.Unlock()
		p.conn.Close()
		for _, pc := range pending {
			pc.ch <- result{err: crashed("the plugin's worker process died during the call (" + why + ")")}
		}
		p.w.died(p, why, killed)
	})
}

// close ends the worker politely: its socket closes and it exits once
// its calls are cancelled; after timeout it is killed. close returns when
// the process has ended.
func (p *proc) close(timeout time.Duration) {
	p.mu.Lock()
	p.killed = true // not a crash
	p.mu.Unlock()
	p.conn.Close()
	exited := make(chan struct{})
	go func() {
		p.h.wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(timeout):
		p.h.kill()
		<-exited
	}
}

func crashed(msg string) *plugin.Error {
	return &plugin.Error{Category: abi.ErrWorkerCrashed, Message: msg}
}
