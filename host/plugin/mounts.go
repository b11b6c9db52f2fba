package plugin

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/sandboxfs"
	"github.com/tetratelabs/wazero"
)

// Canonical returns the absolute, symlink-free, clean form of a folder path,
// the form grants and roots are compared in.
func Canonical(path string) (string, error) { return sandboxfs.Canonical(path) }

// OpenGrant checks a folder and opens it, once, for a grant: the plugin's
// calls see that folder through the handle, whatever happens to path later
// (a rename, a symlink swapped in). The grant's Path is the canonical path.
// The handle lives as long as the process.
func OpenGrant(path string, readOnly bool) (Grant, error) {
	r, canon, err := sandboxfs.OpenDir(path)
	if err != nil {
		return Grant{}, err
	}
	return Grant{Path: canon, ReadOnly: readOnly, root: r}, nil
}

// openGrants opens the grants made without OpenGrant (by path, now: Load is
// their check time). It returns the grants with handles, and a Closer for
// the handles it opened.
func openGrants(grants []Grant) ([]Grant, io.Closer, error) {
	out := make([]Grant, len(grants))
	var opened rootList
	for i, g := range grants {
		out[i] = g
		if g.root != nil {
			continue
		}
		og, err := OpenGrant(g.Path, g.ReadOnly)
		if err != nil {
			opened.Close()
			return nil, nil, fmt.Errorf("granted folder: %w", err)
		}
		if og.Path != g.Path {
			og.root.Close()
			opened.Close()
			return nil, nil, fmt.Errorf("granted folder %q is not canonical (it resolves to %q)", g.Path, og.Path)
		}
		out[i] = og
		opened = append(opened, og.root)
	}
	return out, opened, nil
}

// rootList closes a set of handles.
type rootList []*os.Root

// Close implements io.Closer.
func (rs rootList) Close() error {
	for _, r := range rs {
		r.Close()
	}
	return nil
}

// mountFS builds the guest's filesystem for one call: os.Root-backed mounts
// that symlinks, hard links, renames and ".." cannot leave. Each mount is
// opened through the handle of the grant holding it: the grant itself, or
// a folder below it resolved inside the grant.
//
// refused is told of each refusal, for the audit log: a mount outside the
// grants, and each path the guest tried that leaves its mount.
func mountFS(mounts []abi.Mount, grants []Grant, refused func(reason string)) (wazero.FSConfig, io.Closer, error) {
	ms := make([]sandboxfs.Mount, 0, len(mounts))
	fail := func(err error) (wazero.FSConfig, io.Closer, error) {
		for _, m := range ms {
			m.Root.Close()
		}
		return nil, nil, err
	}
	for _, m := range mounts {
		g, rel, ok := grantFor(m, grants)
		if !ok {
			err := fmt.Errorf("%s is not inside a folder granted to this plugin (for %s)", m.Path, mode(m.ReadOnly))
			refused(err.Error())
			return fail(err)
		}
		r, err := g.root.OpenRoot(rel)
		if err != nil {
			return fail(fmt.Errorf("opening %s in the granted folder %s: %w", rel, g.Path, err))
		}
		hostPath := m.Path
		ms = append(ms, sandboxfs.Mount{HostPath: m.Path, ReadOnly: m.ReadOnly, Root: r,
			OnEscape: func(name string) { refused(fmt.Sprintf("%q leaves the mount %s", name, hostPath)) }})
	}
	return sandboxfs.FSConfig(ms)
}

// grantFor finds the grant that allows mount m: the deepest grant holding
// m.Path whose mode allows m's. rel is m's path inside it ("." for the
// grant itself).
func grantFor(m abi.Mount, grants []Grant) (g Grant, rel string, ok bool) {
	for _, c := range grants {
		if c.root == nil || (c.ReadOnly && !m.ReadOnly) {
			continue
		}
		r, err := filepath.Rel(c.Path, m.Path)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
			continue
		}
		if !ok || len(c.Path) > len(g.Path) {
			g, rel, ok = c, r, true
		}
	}
	return g, rel, ok
}

func mode(readOnly bool) string {
	if readOnly {
		return "reading"
	}
	return "writing"
}
