package server

import (
	"context"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// Hot reload swaps plugins while clients use them. Two things make it
// invisible to a client, beyond the list_changed notifications:
//
//   - Publish publishes before it withdraws. go-sdk's AddTool (AddPrompt,
//     AddResource...) replaces a feature of the same name in place, so a
//     tool that both versions declare is never missing from tools/list:
//     a list sees the old definition or the new one. Only names the new
//     version dropped are withdrawn, after it is published.
//   - Retire closes the plugin that left only once no request that began
//     before the swap is still running: a call that already reached the
//     old version (or was about to: go-sdk had looked its handler up)
//     finishes on it, with the old answer. Requests that begin after the
//     swap find only the new version. That is an epoch count, not a
//     reference count per plugin, so it covers every path to a plugin
//     (tools, resources, prompts, completions, the list refresher) without
//     each one taking a reference.

// epochs counts the requests that may use a plugin, by the epoch they
// began in. Retiring a plugin starts a new epoch and waits until no
// request of an earlier one runs.
type epochs struct {
	mu      sync.Mutex
	cur     uint64
	running map[uint64]int
	waiters []epochWaiter
}

type epochWaiter struct {
	epoch uint64 // requests begun before this one must end
	done  chan struct{}
}

// begin counts a request in and returns its epoch, for end.
func (e *epochs) begin() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running == nil {
		e.running = map[uint64]int{}
	}
	e.running[e.cur]++
	return e.cur
}

// end counts a request of epoch ep out.
func (e *epochs) end(ep uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running[ep]--; e.running[ep] <= 0 {
		delete(e.running, ep)
	}
	kept := e.waiters[:0]
	for _, w := range e.waiters {
		if e.quiet(w.epoch) {
			close(w.done)
		} else {
			kept = append(kept, w)
		}
	}
	e.waiters = kept
}

// quiet reports whether no request begun before epoch ep runs. e.mu must
// be held.
func (e *epochs) quiet(ep uint64) bool {
	for k := range e.running {
		if k < ep {
			return false
		}
	}
	return true
}

// advance starts a new epoch and returns a channel closed once every
// request begun before it has ended.
func (e *epochs) advance() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cur++
	w := epochWaiter{epoch: e.cur, done: make(chan struct{})}
	if e.quiet(w.epoch) {
		close(w.done)
	} else {
		e.waiters = append(e.waiters, w)
	}
	return w.done
}

// Retire closes a plugin that a reload withdrew from the registry, in the
// background, once every request that began before now has ended (see
// above); Close itself then waits for the plugin's running calls, each
// bounded by its time limit. Call it after the swap is published. The
// returned channel is closed once the plugin is closed.
func (s *Server) Retire(p *plugin.Plugin) <-chan struct{} {
	quiet := s.epochs.advance()
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-quiet
		p.Close(context.Background())
	}()
	return done
}

// Reloading marks a hot reload as begun (on) or ended (off). The server
// keeps serving throughout, so it stays ready; /readyz reports
// "reloading": true meanwhile so an operator or a rollout can tell.
func (s *Server) Reloading(on bool) {
	if on {
		s.reloads.Add(1)
	} else {
		s.reloads.Add(-1)
	}
}
