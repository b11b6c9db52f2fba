// Package trusttest holds what tests of the trust check share: a lock file
// in memory.
package trusttest

import "sync"

// MemStore is a trust.Store in memory: the approved declaration lines by
// plugin. Its zero value is empty and ready.
type MemStore struct {
	mu    sync.Mutex
	lines map[string][]string
	sets  int
}

// Decls returns every plugin's lines.
func (m *MemStore) Decls() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, ls := range m.lines {
		out = append(out, ls...)
	}
	return out
}

// SetDecls replaces plugin's lines.
func (m *MemStore) SetDecls(plugin string, lines []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lines == nil {
		m.lines = map[string][]string{}
	}
	m.lines[plugin] = lines
	m.sets++
	return nil
}

// Lines returns plugin's lines.
func (m *MemStore) Lines(plugin string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lines[plugin]
}

// Sets counts the calls to SetDecls.
func (m *MemStore) Sets() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sets
}
