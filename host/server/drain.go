package server

import (
	"context"
	"sync"
)

// drainState counts the requests that run guest code. Once Drain starts,
// new ones are refused, so the count can only fall.
type drainState struct {
	mu       sync.Mutex
	n        int
	draining bool
	stopping bool          // Stopping was called: not ready, though still serving
	idle     chan struct{} // closed when draining and n is 0
}

// Stopping marks the server as shutting down for /readyz without refusing
// anything: for Streamable HTTP, whose listener closes instead and whose
// requests already received are all answered.
func (s *Server) Stopping() {
	s.drain.mu.Lock()
	s.drain.stopping = true
	s.drain.mu.Unlock()
}

// begin counts a request in; false once draining.
func (d *drainState) begin() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.draining {
		return false
	}
	d.n++
	return true
}

func (d *drainState) end() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n--
	if d.draining && d.n == 0 && d.idle != nil {
		close(d.idle)
		d.idle = nil
	}
}

// start stops admissions and returns a channel closed once nothing runs.
func (d *drainState) start() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.draining = true
	if d.n == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	if d.idle == nil {
		d.idle = make(chan struct{})
	}
	return d.idle
}

// Drain stops admitting requests that run guest code (tool calls, resource
// reads, prompts, completions; they are answered "the server is shutting
// down") and waits until those running have finished, or ctx ends. It is for
// shutdown: the server does not admit such requests again.
func (s *Server) Drain(ctx context.Context) {
	select {
	case <-s.drain.start():
	case <-ctx.Done():
	}
}
