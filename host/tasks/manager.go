package tasks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"
)

// Outcome is what one run of a task produced: a tool result, the input it
// waits for, or an error. Exactly one is set.
type Outcome struct {
	Result json.RawMessage            // the tool result (completed; isError included)
	Inputs map[string]json.RawMessage // input requests by key (input_required)
	Err    *Error                     // the task could not produce a result (failed)
}

// Runner runs a task once, from the start, with the client's answers so
// far. It returns when the run ends or ctx does (a cancel, the time limit).
type Runner func(ctx context.Context, answers map[string]json.RawMessage) Outcome

// Factory turns a record's Spec into its Runner.
type Factory func(spec json.RawMessage) (Runner, error)

// Options configures a Manager.
type Options struct {
	// Store keeps the records; NewMemoryStore(0) if nil.
	Store Store
	// Factory runs tasks. Required.
	Factory Factory
	// TTL is every task's ttlMs: how long its record lives from creation.
	// Default 1h.
	TTL time.Duration
	// Timeout bounds one run of a task. Default 10m; at most TTL.
	Timeout time.Duration
	// PerPrincipal bounds the live tasks of one principal. Default 16.
	PerPrincipal int
	// PollInterval is the pollIntervalMs suggested to clients. Default 1s.
	PollInterval time.Duration
	// Lease is how long a replica's claim on a running task lasts
	// unless renewed (every Lease/3). Default 15s.
	Lease time.Duration
	// Replica names this process in leases; random if empty.
	Replica string
	// Logger receives diagnostics.
	Logger *slog.Logger
}

// Manager creates, runs and answers for tasks.
type Manager struct {
	o       Options
	mu      sync.Mutex
	running map[string]*run // tasks this replica runs
	stop    chan struct{}
	loop    sync.Once // starts leaseLoop with the first task
	// listenCtx ends the store's cancel subscription at Close.
	listenCtx  context.Context
	stopListen context.CancelFunc
	done       sync.WaitGroup
	now        func() time.Time
}

type run struct {
	n      int
	cancel context.CancelCauseFunc
}

// errCancelled is the cause of a run stopped by tasks/cancel.
var errCancelled = errors.New("cancelled by tasks/cancel")

// New returns a Manager. Its lease loop starts with the first task this
// replica runs; Close stops it.
func New(o Options) (*Manager, error) {
	if o.Factory == nil {
		return nil, errors.New("tasks: no Factory")
	}
	if o.Store == nil {
		o.Store = NewMemoryStore(0)
	}
	if o.TTL <= 0 {
		o.TTL = time.Hour
	}
	if o.Timeout <= 0 {
		o.Timeout = min(10*time.Minute, o.TTL)
	}
	if o.Timeout > o.TTL {
		return nil, fmt.Errorf("tasks: the time limit (%v) is longer than the ttl (%v): a task could outlive its record", o.Timeout, o.TTL)
	}
	if o.PerPrincipal <= 0 {
		o.PerPrincipal = 16
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.Lease <= 0 {
		o.Lease = 15 * time.Second
	}
	if o.Replica == "" {
		o.Replica = newID()[:12]
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Manager{o: o, running: map[string]*run{}, stop: make(chan struct{}), now: time.Now}
	m.listenCtx, m.stopListen = context.WithCancel(context.Background())
	return m, nil
}

// Options returns the options in force (defaults filled in).
func (m *Manager) Options() Options { return m.o }

// Close stops the lease loop and cancels the tasks this replica runs;
// they end failed, as they would were the process killed.
func (m *Manager) Close() error {
	select {
	case <-m.stop:
		return nil
	default:
	}
	close(m.stop)
	m.stopListen()
	m.loop.Do(func() {}) // no loop after Close
	m.mu.Lock()
	for _, r := range m.running {
		r.cancel(errShutdown)
	}
	m.mu.Unlock()
	m.done.Wait()
	return m.o.Store.Close()
}

var errShutdown = errors.New("the server shut down while the task ran")

func newID() string {
	b := make([]byte, 18)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Create stores a working task for owner and starts it on this replica. It
// returns once the task is durably created (a tasks/get anywhere finds it).
// answers are the client's answers gathered before the task (by multi
// round-trip on tools/call), nil if none.
func (m *Manager) Create(ctx context.Context, owner string, spec json.RawMessage, answers map[string]json.RawMessage) (*Record, error) {
	runner, err := m.o.Factory(spec)
	if err != nil {
		return nil, err
	}
	now := m.now().UTC()
	r := &Record{ID: newID(), Owner: owner, Status: Working, CreatedAt: now, UpdatedAt: now, TTL: m.o.TTL,
		Spec: spec, Answers: answers, Holder: m.o.Replica, LeaseUntil: now.Add(m.o.Lease), Run: 1}
	if err := m.o.Store.Create(ctx, r, m.o.PerPrincipal); err != nil {
		return nil, err
	}
	m.start(r.ID, 1, runner, answers)
	return r, nil
}

// Get returns owner's task id, failing it first if its lease lapsed.
func (m *Manager) Get(ctx context.Context, owner, id string) (*Record, error) {
	r, err := m.o.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Owner != owner {
		return nil, ErrNotFound // another principal's task is not there for this one
	}
	if m.lapsed(r) {
		return m.failLapsed(ctx, id)
	}
	return r, nil
}

func (m *Manager) lapsed(r *Record) bool {
	return r.Status == Working && !r.LeaseUntil.IsZero() && m.now().After(r.LeaseUntil)
}

// failLapsed ends a task whose replica stopped renewing its lease.
func (m *Manager) failLapsed(ctx context.Context, id string) (*Record, error) {
	return m.o.Store.Update(ctx, id, func(r *Record) error {
		if m.lapsed(r) {
			m.finish(r, Outcome{Err: &Error{Code: codeInternal,
				Message: fmt.Sprintf("the replica running this task (%s) stopped: its lease lapsed at %s", r.Holder, r.LeaseUntil.Format(time.RFC3339))}})
		}
		return nil
	})
}

const codeInternal = -32603

// Update records owner's answers to the requests task id waits on.
// Answers to keys it is not waiting on are ignored. Once no request is
// left unanswered, the task runs again, on this replica.
func (m *Manager) Update(ctx context.Context, owner, id string, answers map[string]json.RawMessage) error {
	if _, err := m.Get(ctx, owner, id); err != nil {
		return err
	}
	var restart bool
	r, err := m.o.Store.Update(ctx, id, func(r *Record) error {
		restart = false
		if r.Status != InputRequired {
			return nil
		}
		for k, a := range answers {
			if _, ok := r.Inputs[k]; ok {
				if r.Answers == nil {
					r.Answers = map[string]json.RawMessage{}
				}
				r.Answers[k] = a
				delete(r.Inputs, k)
			}
		}
		r.UpdatedAt = m.now().UTC()
		if len(r.Inputs) == 0 {
			restart = true
			r.Inputs = nil
			r.Status, r.Message = Working, ""
			r.Run++
			r.Holder, r.LeaseUntil = m.o.Replica, m.now().Add(m.o.Lease)
		}
		return nil
	})
	if err != nil || !restart {
		return err
	}
	runner, ferr := m.o.Factory(r.Spec)
	if ferr != nil {
		m.settle(id, r.Run, Outcome{Err: &Error{Code: codeInternal, Message: ferr.Error()}})
		return nil
	}
	m.start(id, r.Run, runner, r.Answers)
	return nil
}

// Cancel cancels owner's task id: a live task ends cancelled at once, and
// the replica running it stops its guest (at once here; elsewhere at its
// next lease renewal). A terminal task is left as it is.
func (m *Manager) Cancel(ctx context.Context, owner, id string) error {
	if _, err := m.Get(ctx, owner, id); err != nil {
		return err
	}
	_, err := m.o.Store.Update(ctx, id, func(r *Record) error {
		if r.Status.Terminal() {
			return nil
		}
		r.CancelRequested = true
		r.Status, r.Message = Cancelled, "cancelled by the client"
		r.Inputs, r.Holder, r.LeaseUntil = nil, "", time.Time{}
		r.UpdatedAt = m.now().UTC()
		return nil
	})
	if err != nil {
		return err
	}
	m.stopLocal(id, errCancelled)
	return nil
}

func (m *Manager) stopLocal(id string, cause error) {
	m.mu.Lock()
	if r, ok := m.running[id]; ok {
		r.cancel(cause)
	}
	m.mu.Unlock()
}

// Running is the number of runs this replica has under way.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.running)
}

// start runs run n of task id in the background, detached from any
// request, under the task time limit.
func (m *Manager) start(id string, n int, runner Runner, answers map[string]json.RawMessage) {
	m.loop.Do(func() {
		m.done.Add(1)
		go m.leaseLoop()
		if c, ok := m.o.Store.(Canceller); ok {
			// Subscribed before the first run starts: no cancel of it is missed.
			ch := c.Cancellations(m.listenCtx)
			m.done.Add(1)
			go m.listen(ch)
		}
	})
	ctx, cancel := context.WithCancelCause(context.Background())
	ctx, cancelT := context.WithTimeout(ctx, m.o.Timeout)
	m.mu.Lock()
	m.running[id] = &run{n: n, cancel: cancel}
	m.mu.Unlock()
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		defer cancelT()
		out := runner(ctx, maps.Clone(answers))
		cause := context.Cause(ctx)
		m.mu.Lock()
		if r, ok := m.running[id]; ok && r.n == n {
			delete(m.running, id)
		}
		m.mu.Unlock()
		cancel(nil)
		switch {
		case errors.Is(cause, errCancelled):
			return // Cancel has recorded it
		case errors.Is(cause, errShutdown):
			out = Outcome{Err: &Error{Code: codeInternal, Message: errShutdown.Error()}}
		case errors.Is(cause, context.DeadlineExceeded):
			out = Outcome{Err: &Error{Code: codeInternal, Message: fmt.Sprintf("the task ran past its time limit of %v", m.o.Timeout)}}
		}
		m.settle(id, n, out)
	}()
}

// settle records run n's outcome, unless the task moved on (a cancel, a
// lapse, a newer run).
func (m *Manager) settle(id string, n int, out Outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := m.o.Store.Update(ctx, id, func(r *Record) error {
		if r.Run != n || r.Status != Working {
			return nil
		}
		m.finish(r, out)
		return nil
	})
	if errors.Is(err, ErrTooLarge) {
		_, err = m.o.Store.Update(ctx, id, func(r *Record) error {
			if r.Run == n && r.Status == Working {
				m.finish(r, Outcome{Err: &Error{Code: codeInternal, Message: "the task's result exceeds the task store's size limit"}})
			}
			return nil
		})
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		m.o.Logger.Error("task: could not record its outcome", "task", id, "error", err)
	}
}

// finish puts an outcome into r.
func (m *Manager) finish(r *Record, out Outcome) {
	r.UpdatedAt = m.now().UTC()
	r.Holder, r.LeaseUntil = "", time.Time{}
	switch {
	case out.Inputs != nil:
		r.Status, r.Inputs = InputRequired, out.Inputs
	case out.Err != nil:
		r.Status, r.Err, r.Message = Failed, out.Err, out.Err.Message
	default:
		r.Status, r.Result = Completed, out.Result
	}
}

// leaseLoop renews the leases of this replica's runs, stops the ones
// cancelled through another replica, and fails tasks whose lease lapsed.
func (m *Manager) leaseLoop() {
	defer m.done.Done()
	t := time.NewTicker(m.o.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		m.renew()
		m.sweep()
	}
}

// listen stops the runs cancelled through another replica as soon as the
// store says so.
func (m *Manager) listen(ch <-chan string) {
	defer m.done.Done()
	for {
		select {
		case <-m.stop:
			return
		case id, ok := <-ch:
			if !ok {
				return
			}
			m.stopLocal(id, errCancelled)
		}
	}
}

func (m *Manager) renew() {
	m.mu.Lock()
	runs := maps.Clone(m.running)
	m.mu.Unlock()
	for id, rn := range runs {
		ctx, cancel := context.WithTimeout(context.Background(), m.o.Lease/3)
		r, err := m.o.Store.Update(ctx, id, func(r *Record) error {
			if r.Run == rn.n && r.Status == Working {
				r.Holder, r.LeaseUntil = m.o.Replica, m.now().Add(m.o.Lease)
			}
			return nil
		})
		cancel()
		switch {
		case errors.Is(err, ErrNotFound):
			rn.cancel(errCancelled) // expired: nobody can read the outcome
		case err != nil:
			m.o.Logger.Warn("task: lease renewal failed", "task", id, "error", err)
		case r.CancelRequested || r.Run != rn.n:
			rn.cancel(errCancelled)
		}
	}
}

func (m *Manager) sweep() {
	ctx, cancel := context.WithTimeout(context.Background(), m.o.Lease/3)
	defer cancel()
	ids, err := m.o.Store.Live(ctx)
	if err != nil {
		return
	}
	for _, id := range ids {
		if r, err := m.o.Store.Get(ctx, id); err == nil && m.lapsed(r) {
			m.failLapsed(ctx, id)
		}
	}
}
