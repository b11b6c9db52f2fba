package lifecycle

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// grantCache opens each granted folder once and hands out the same handle
// after: a reload reading the config again neither reopens (nor leaks) the
// folders granted before, and plugins that keep a grant keep its handle. A
// folder granted anew is opened, and so checked, at the reload that grants
// it. Handles are kept for the process's life: at most one per folder ever
// granted.
type grantCache struct {
	mu sync.Mutex
	m  map[string]plugin.Grant
}

func (g *grantCache) open(path string, readOnly bool) (plugin.Grant, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := fmt.Sprintf("%v:%s", readOnly, absPath(path))
	if gr, ok := g.m[k]; ok {
		return gr, nil
	}
	gr, err := plugin.OpenGrant(path, readOnly)
	if err != nil {
		return gr, err
	}
	if g.m == nil {
		g.m = map[string]plugin.Grant{}
	}
	g.m[k] = gr
	return gr, nil
}

// absPath is path made absolute and clean (as is, if that fails).
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return filepath.Clean(path)
}
