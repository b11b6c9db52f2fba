// Package mounts narrows a plugin's folders to a client's roots: the
// folders a call may use are the intersection of what the operator granted
// and what the client listed (the plugin opens each inside its grant again,
// through os.Root: host/plugin's mountFS).
package mounts

import (
	"path/filepath"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// Narrow intersects a plugin's grants with the client's roots (canonical
// paths). roots == nil means the client does not narrow. outside are the
// roots outside every grant, which the caller reports.
func Narrow(grants []plugin.Grant, roots []string) (_ []abi.Mount, outside []string) {
	if roots == nil {
		out := make([]abi.Mount, 0, len(grants))
		for _, g := range grants {
			out = append(out, abi.Mount{Path: g.Path, ReadOnly: g.ReadOnly})
		}
		return normalize(out), nil
	}
	seen := map[string]bool{}
	out := []abi.Mount{}
	for _, r := range roots {
		inside := false
		for _, g := range grants {
			var m abi.Mount
			switch {
			case within(r, g.Path):
				m = abi.Mount{Path: r, ReadOnly: g.ReadOnly}
			case within(g.Path, r):
				m = abi.Mount{Path: g.Path, ReadOnly: g.ReadOnly}
			default:
				continue
			}
			inside = true
			if !seen[m.Path] {
				seen[m.Path] = true
				out = append(out, m)
			}
		}
		if !inside {
			outside = append(outside, r)
		}
	}
	return normalize(out), outside
}

// normalize drops mounts that lie inside a read-write mount: the outer mount
// already gives the guest everything they would, and the sandbox refuses a
// read-only mount nested in a read-write one.
func normalize(ms []abi.Mount) []abi.Mount {
	out := ms[:0:0]
	for i, m := range ms {
		covered := false
		for j, o := range ms {
			if i != j && !o.ReadOnly && o.Path != m.Path && within(m.Path, o.Path) {
				covered = true
			}
		}
		if !covered {
			out = append(out, m)
		}
	}
	return out
}

// within reports whether path is dir or inside it (both canonical).
func within(path, dir string) bool {
	if path == dir || dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}
