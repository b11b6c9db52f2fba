// Package mounts makes the mounts of a call: the folders a call may use are
// the intersection of what the operator granted and what the client listed
// as its roots. It is the one place roots narrow the grants; host/plugin's
// mountFS then opens each mount inside its grant through os.Root and
// refuses (and audits) one outside every grant: the enforcement, not a
// second narrowing.
package mounts

import (
	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/sandboxfs"
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
		return uncovered(out), nil
	}
	seen := map[string]bool{}
	out := []abi.Mount{}
	for _, r := range roots {
		inside := false
		for _, g := range grants {
			var m abi.Mount
			switch {
			case sandboxfs.Within(r, g.Path):
				m = abi.Mount{Path: r, ReadOnly: g.ReadOnly}
			case sandboxfs.Within(g.Path, r):
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
	return uncovered(out), outside
}

// normalize drops mounts that lie inside a read-write mount: the outer mount
// already gives the guest everything they would, and the sandbox refuses a
// read-only mount nested in a read-write one.
func uncovered(ms []abi.Mount) []abi.Mount {
	out := ms[:0:0]
	for i, m := range ms {
		covered := false
		for j, o := range ms {
			if i != j && !o.ReadOnly && o.Path != m.Path && sandboxfs.Within(m.Path, o.Path) {
				covered = true
			}
		}
		if !covered {
			out = append(out, m)
		}
	}
	return out
}
