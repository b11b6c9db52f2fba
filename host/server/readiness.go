package server

import (
	"slices"
	"sync"
)

// Readiness is the server's state as /readyz reports it.
type Readiness struct {
	// Ready is true once the initial load has ended and the server is not
	// draining.
	Ready bool `json:"ready"`
	// Status is "ready", "loading" (the initial load has not ended) or
	// "draining" (shutting down: guest requests are refused).
	Status string `json:"status"`
	// Loading names the plugins still loading.
	Loading []string `json:"loading,omitempty"`
	// Failed names the plugins that did not load (see LoadFailed). They
	// do not make the server unready: it serves the others.
	Failed []string `json:"failed,omitempty"`
	// Plugins counts the plugins served.
	Plugins int `json:"plugins"`
	// Reloading is true while a hot reload is under way (see Reloading);
	// the server still serves, so it does not make it unready.
	Reloading bool `json:"reloading,omitempty"`
}

// Readiness statuses.
const (
	StatusReady    = "ready"
	StatusLoading  = "loading"
	StatusDraining = "draining"
)

// failures lists the plugins that did not load, for /readyz.
type failures struct {
	mu    sync.Mutex
	names []string
}

// LoadFailed records that a plugin did not load, for /readyz.
func (s *Server) LoadFailed(name string) {
	s.failed.mu.Lock()
	defer s.failed.mu.Unlock()
	if !slices.Contains(s.failed.names, name) {
		s.failed.names = append(s.failed.names, name)
	}
}

// Readiness reports whether the server is ready to serve guest requests:
// the initial load has ended (Ready was called) and Drain has not begun.
func (s *Server) Readiness() Readiness {
	r := Readiness{Status: StatusReady, Plugins: s.Plugins()}
	if names := s.reg.StillLoading(); len(names) > 0 {
		r.Loading = names
	}
	s.failed.mu.Lock()
	r.Failed = slices.Clone(s.failed.names)
	s.failed.mu.Unlock()
	select {
	case <-s.ready:
	default:
		r.Status = StatusLoading
	}
	s.drain.mu.Lock()
	if s.drain.draining || s.drain.stopping {
		r.Status = StatusDraining
	}
	s.drain.mu.Unlock()
	r.Ready = r.Status == StatusReady
	r.Reloading = s.reloads.Load() > 0
	return r
}

// Plugins counts the plugins published and served now.
func (s *Server) Plugins() int {
	s.load.mu.Lock()
	defer s.load.mu.Unlock()
	return len(s.load.live)
}

// Sessions counts the MCP sessions open now.
func (s *Server) Sessions() int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}
