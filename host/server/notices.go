package server

import (
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
)

// listKind indexes the three kinds of lists (the registry's kinds of
// name).
type listKind = registry.Kind

const (
	toolList     = registry.KindTool
	resourceList = registry.KindResource
	promptList   = registry.KindPrompt
	kinds        = registry.Kinds
)

// refresher has a plugin's lists re-read after it says they changed
// (Options.ListsChanged). Requests coalesce: one refresh runs per plugin at
// a time, after a short delay, and outside the guest call that asked for it
// (which holds a concurrency slot).
type refresher struct {
	mu      sync.Mutex
	pending map[*plugin.Plugin]bool
}

func (s *Server) requestRefresh(p *plugin.Plugin) {
	if s.opts.ListsChanged == nil {
		return
	}
	s.refresh.mu.Lock()
	defer s.refresh.mu.Unlock()
	if s.refresh.pending == nil {
		s.refresh.pending = map[*plugin.Plugin]bool{}
	}
	if s.refresh.pending[p] {
		return
	}
	s.refresh.pending[p] = true
	time.AfterFunc(50*time.Millisecond, func() {
		s.refresh.mu.Lock()
		delete(s.refresh.pending, p)
		s.refresh.mu.Unlock()
		ep := s.epochs.begin() // p is not closed under the refresh (reload.go)
		defer s.epochs.end(ep)
		s.opts.ListsChanged(p)
	})
}
