package plugin

import (
	"context"
	"fmt"
	"sync"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/mcpwasm/mcpwasm/host/internal/memalloc"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

// A call's instance is built before the call when it can be (RATIONALE.md,
// "The call path"): building one — Extism's kernel and the plugin's module
// — is the same work whoever asks for it, so each plugin keeps one instance
// built ahead, off the call path, and its next call without folders takes
// it. It is still one instance per call: an instance runs at most one call
// and is closed after it; the next one is built anew.
//
// Bounds: one per plugin, built from its second call on, and closed after
// spareIdle unused; its memories are charged to the memory budget like a
// running call's, it is built only while the budget has room for it and
// one more instance of the plugin besides, and a call that finds no room
// closes every instance built ahead before it waits (dropSpares), so a
// spare never holds room a call needs; a plugin's spare is closed with the
// plugin (reload, config change, shutdown). Calls with folders build their
// own: the mounts are part of an instance's configuration.

// instance is one built instance and what was built with it: its memory
// reservation and watchers, its captured output, and where its sleeps find
// the context of the call it runs.
type instance struct {
	inst   *extism.Plugin
	res    *memalloc.Reservation
	mem    *memWatch
	exit   *exitWatch
	stdout *capWriter
	stderr *capWriter
	call   *callRef
}

// callRef is where an instance's host callbacks (sleeps) find the context
// of the call it runs. It is set before the call, on the goroutine that
// runs it; a spare's is handed over through spares.mu.
type callRef struct{ ctx context.Context }

// newInstance builds an instance of code, its memories drawn from res, with
// the folders fsc describes (nil: none). ctx is the instantiation's
// context; the caller sets in.call.ctx before running it.
func (p *Plugin) newInstance(ctx context.Context, code *extism.CompiledPlugin, res *memalloc.Reservation, fsc wazero.FSConfig) (*instance, error) {
	in := &instance{res: res, mem: &memWatch{inner: res, limit: p.cfg.MemoryLimit}, exit: &exitWatch{},
		stdout: &capWriter{max: guestOutputCap}, stderr: &capWriter{max: guestOutputCap}, call: &callRef{ctx: ctx}}
	mc := p.moduleConfig(in.call, in.stdout, in.stderr)
	if fsc != nil {
		mc = mc.WithFSConfig(fsc)
	}
	ictx := experimental.WithMemoryAllocator(ctx, in.mem)
	ictx = experimental.WithCloseNotifier(ictx, in.exit)
	inst, err := code.Instance(ictx, extism.PluginInstanceConfig{ModuleConfig: mc})
	if err != nil {
		return nil, fmt.Errorf("instantiate: %w", err)
	}
	in.inst = inst
	return in, nil
}

// spares holds a plugin's instance built ahead of its next call.
type spares struct {
	mu       sync.Mutex
	ready    *instance
	building chan struct{} // closed when the build under way ends; nil: none
	closed   bool
	calls    int64 // calls that could have taken one
	builds   sync.WaitGroup
	counts   SpareStats
}

// spareIdle is how long an instance built ahead waits for a call before it
// is closed: a plugin called once in a while keeps no memory for it.
var spareIdle = 5 * time.Second

// spareList is the Runtime's plugins that hold an instance built ahead,
// for a call that needs their room in the memory budget (dropSpares).
type spareList struct {
	mu  sync.Mutex
	set map[*spares]bool
}

func (l *spareList) add(s *spares) {
	l.mu.Lock()
	if l.set == nil {
		l.set = map[*spares]bool{}
	}
	l.set[s] = true
	l.mu.Unlock()
}

func (l *spareList) remove(s *spares) {
	l.mu.Lock()
	delete(l.set, s)
	l.mu.Unlock()
}

// dropSpares closes every instance built ahead in the runtime that no
// call has taken, giving their memory back to the budget. A call that
// finds no room calls it before it waits: an instance built ahead never
// holds room a call needs.
func (rt *Runtime) dropSpares() {
	rt.spareList.mu.Lock()
	held := make([]*spares, 0, len(rt.spareList.set))
	for s := range rt.spareList.set {
		held = append(held, s)
	}
	rt.spareList.mu.Unlock()
	for _, s := range held {
		s.mu.Lock()
		if s.ready != nil {
			s.discardLocked(s.ready)
			s.ready = nil
		}
		s.mu.Unlock()
		rt.spareList.remove(s)
	}
}

// SpareStats counts a plugin's instances built ahead of calls.
type SpareStats struct {
	// Taken counts calls that ran in an instance built ahead; Built the
	// instances built ahead; Discarded those closed unused (the plugin
	// closed, the instance waited spareIdle, or a call needed its room in
	// the memory budget); Skipped the builds not started for want of room
	// in the memory budget.
	Taken, Built, Discarded, Skipped int64
}

// Spares reports how the plugin's calls used instances built ahead.
func (p *Plugin) Spares() SpareStats {
	p.spare.mu.Lock()
	defer p.spare.mu.Unlock()
	return p.spare.counts
}

// takeSpare returns the instance built ahead for a call on code, if there
// is one, and starts building the next. Only calls without folders take
// one.
func (p *Plugin) takeSpare(ctx context.Context, code *extism.CompiledPlugin, co CallOptions) *instance {
	if len(co.Mounts) > 0 || p.rt.noSpares {
		return nil
	}
	p.codeMu.Lock()
	machine := code == p.compiled
	p.codeMu.Unlock()
	if !machine {
		return nil // the lister's: it is dropped once the plugin is listed
	}
	s := &p.spare
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready == nil && s.building != nil {
		// Building it takes no longer than building another would, and
		// building both would take twice the CPU.
		done := s.building
		s.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
		}
		s.mu.Lock()
	}
	in := s.ready
	s.ready = nil
	if in != nil {
		s.counts.Taken++
		p.rt.spareList.remove(s)
	}
	// A plugin's first call builds nothing ahead: a plugin called once
	// (a probe, a rarely used tool) would pay for two instances.
	if s.calls++; s.calls > 1 {
		p.prepareLocked(code)
	}
	return in
}

// prepareLocked starts building a spare instance of code, unless one is
// ready or being built. s.mu is held.
func (p *Plugin) prepareLocked(code *extism.CompiledPlugin) {
	s := &p.spare
	if s.closed || s.building != nil || s.ready != nil {
		return
	}
	need := p.startBytes()
	if b := p.rt.budget; b > 0 && p.rt.mem.Stats().Committed+2*need > b {
		s.counts.Skipped++
		return
	}
	now, cancel := context.WithCancel(context.Background())
	cancel() // a reservation that does not wait: room now, or no spare
	res, err := p.rt.mem.Reserve(now, need)
	if err != nil {
		s.counts.Skipped++
		return
	}
	done := make(chan struct{})
	s.building = done
	s.builds.Add(1)
	go func() {
		defer s.builds.Done()
		in, err := p.newInstance(context.Background(), code, res, nil)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.building = nil
		close(done)
		switch {
		case err != nil:
			res.Release()
			p.rt.logger.Debug("could not build an instance ahead of a call", "plugin", p.cfg.Name, "err", err)
		case s.closed:
			in.close()
			s.counts.Discarded++
		default:
			s.ready = in
			s.counts.Built++
			p.rt.spareList.add(s)
			time.AfterFunc(spareIdle, func() {
				s.mu.Lock()
				defer s.mu.Unlock()
				if s.ready == in {
					s.discardLocked(in)
					s.ready = nil
					p.rt.spareList.remove(s)
				}
			})
		}
	}()
}

// discardLocked closes an unused spare. s.mu is held.
func (s *spares) discardLocked(in *instance) {
	in.close()
	s.counts.Discarded++
}

// closeSpares closes the plugin's spare and waits for a build under way;
// no spare is built after it. Call it before the code closes.
func (p *Plugin) closeSpares() {
	s := &p.spare
	s.mu.Lock()
	s.closed = true
	if s.ready != nil {
		s.discardLocked(s.ready)
		s.ready = nil
	}
	s.mu.Unlock()
	s.builds.Wait()
	p.rt.spareList.remove(s)
}

// close closes the instance and returns what its reservation has not
// drawn to the budget (its memories are returned as they are freed).
func (in *instance) close() {
	in.inst.Close(context.Background())
	in.res.Release()
}
