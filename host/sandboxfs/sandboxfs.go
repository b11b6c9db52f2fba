// Package sandboxfs mounts host folders into a wazero guest so that the guest
// cannot reach anything outside them.
//
// wazero's own directory mounts (and so Extism's AllowedPaths) resolve guest
// paths with ordinary path-based system calls, which follow symbolic links
// and so let a guest escape through a link that points outside the mount.
// Here every mount is backed by an [os.Root], which resolves each path one
// component at a time and refuses any path, symlink target or ".." that
// would leave the root. On top of that the guest is not allowed to create
// symbolic or hard links at all.
//
// What the guest sees (errno values are WASI's):
//   - a path, symlink or ".." that would leave a mount: EPERM;
//   - any write (open for writing, create, truncate, mkdir, rename, unlink,
//     rmdir, set times, chmod) on a read-only mount: EROFS;
//   - symlink and hard-link creation: EPERM, on every mount;
//   - readlink: the target when it is relative and stays lexically inside
//     the mount, otherwise EPERM (absolute targets would reveal host paths);
//   - opening anything but a regular file or a directory (devices, FIFOs,
//     sockets): EPERM;
//   - chmod: EPERM (EROFS on a read-only mount).
//
// Other failures carry the host's errno (ENOENT, EEXIST, ENOTDIR, EISDIR,
// ENOTEMPTY, ...). ESCAPES.md lists what a real guest saw for each escape
// attempt.
package sandboxfs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// Mount is one host folder made visible to the guest.
//
// HostPath must be absolute and canonical (see [Canonical]): the folder
// appears in the guest at that same absolute path, so paths a client knows
// work unchanged inside the plugin. ReadOnly refuses every write with EROFS.
//
// Root, if set, is the folder itself, already open (see [OpenDir]): it is
// mounted as is and HostPath is only where the guest sees it, so a folder
// swapped or replaced by a symlink since Root was opened changes nothing.
// FSConfig takes ownership of Root. Without Root, FSConfig opens HostPath.
type Mount struct {
	HostPath string
	ReadOnly bool
	Root     *os.Root
	// OnEscape, if set, is told of each path the guest asked for that
	// leaves the mount (os.Root refused it; the guest got EPERM), for the
	// audit log. name is the path as the guest gave it.
	OnEscape func(name string)
}

// FSConfig returns a wazero FSConfig that mounts each folder at its own
// path, backed by an [os.Root], so that the guest cannot escape it (see the
// package documentation for the exact rules).
//
// Identical mounts are merged. A read-only mount at or below a read-write
// mount is an error: the guest could write to it through the outer mount,
// so the read-only promise could not be kept. A read-write mount below a
// read-only one is fine (writes must go through the inner mount's path).
// An empty list gives a config with no filesystem at all.
//
// The caller owns the returned Closer, which closes the roots. Call it after
// the wazero module instance that used the config has been closed; files the
// guest still holds open stay usable until then.
func FSConfig(mounts []Mount) (wazero.FSConfig, io.Closer, error) {
	ms, err := normalize(mounts)
	if err != nil {
		closeRoots(mounts)
		return nil, nil, err
	}
	cfg := wazero.NewFSConfig()
	var rs roots
	for i, m := range ms {
		r, err := m.Root, error(nil)
		if r != nil {
			err = checkListable(r, m.HostPath)
		} else {
			r, err = openRoot(m.HostPath)
		}
		if err != nil {
			_ = rs.Close()
			closeRoots(ms[i:])
			return nil, nil, err
		}
		rs = append(rs, r)
		fsys := &rootFS{root: r, readOnly: m.ReadOnly, onEscape: m.OnEscape}
		cfg = cfg.(sysfs.FSConfig).WithSysFSMount(fsys, filepath.ToSlash(m.HostPath))
	}
	return cfg, rs, nil
}

// Canonical returns the absolute, symlink-free, clean form of path: the form
// Mount.HostPath must have. A path that is itself a symlink resolves to its
// target, so the guest sees the real folder's path.
func Canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("sandboxfs: %s: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("sandboxfs: %w", err)
	}
	return filepath.Clean(real), nil
}

// normalize checks every mount, merges duplicates and rejects read-only
// mounts that a read-write mount would expose. The result is sorted by path.
// A mount with a Root is not looked up by path (only checked to be absolute
// and clean); the Root of a duplicate is closed.
func normalize(mounts []Mount) ([]Mount, error) {
	var out []Mount
	for _, m := range mounts {
		if !filepath.IsAbs(m.HostPath) {
			return nil, fmt.Errorf("sandboxfs: mount path %q is not absolute", m.HostPath)
		}
		c := filepath.Clean(m.HostPath)
		if m.Root == nil {
			var err error
			if c, err = Canonical(m.HostPath); err != nil {
				return nil, err
			}
		}
		if c != m.HostPath {
			return nil, fmt.Errorf("sandboxfs: mount path %q is not canonical (it resolves to %q)", m.HostPath, c)
		}
		if slices.ContainsFunc(out, func(o Mount) bool { return o.HostPath == m.HostPath && o.ReadOnly == m.ReadOnly }) {
			if m.Root != nil {
				_ = m.Root.Close()
			}
			continue
		}
		out = append(out, m)
	}
	for _, ro := range out {
		if !ro.ReadOnly {
			continue
		}
		for _, rw := range out {
			if !rw.ReadOnly && Within(ro.HostPath, rw.HostPath) {
				return nil, fmt.Errorf("sandboxfs: read-only mount %q is inside read-write mount %q, which would let the guest write to it", ro.HostPath, rw.HostPath)
			}
		}
	}
	slices.SortFunc(out, func(a, b Mount) int { return strings.Compare(a.HostPath, b.HostPath) })
	return out, nil
}

// Within reports whether path is dir or inside it (both canonical).
func Within(path, dir string) bool {
	if path == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}

// openRoot opens dir as a root and checks that it can be listed.
func openRoot(dir string) (*os.Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("sandboxfs: %w", err)
	}
	if err := checkListable(r, dir); err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}

// checkListable checks that r's "." can be opened: wazero opens each
// mount's "." lazily and panics on anything but ENOENT.
func checkListable(r *os.Root, dir string) error {
	f, err := r.Open(".")
	if err != nil {
		return fmt.Errorf("sandboxfs: %s: %w", dir, err)
	}
	return f.Close()
}

// OpenDir opens the folder at path once, for good: the returned Root is
// that folder whatever later happens to the path (a rename, a swapped
// symlink), so grants are opened here when they are checked and mounted
// through the handle, never reopened by path. It also returns the folder's
// canonical path (see [Canonical]), and fails if path did not name the same
// folder while it was being opened and resolved.
func OpenDir(path string) (*os.Root, string, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, "", fmt.Errorf("sandboxfs: %w", err)
	}
	fail := func(err error) (*os.Root, string, error) {
		_ = r.Close()
		return nil, "", err
	}
	canon, err := Canonical(path)
	if err != nil {
		return fail(err)
	}
	opened, err := r.Stat(".")
	if err != nil {
		return fail(fmt.Errorf("sandboxfs: %s: %w", path, err))
	}
	named, err := os.Stat(canon)
	if err != nil {
		return fail(fmt.Errorf("sandboxfs: %w", err))
	}
	if !os.SameFile(opened, named) {
		return fail(fmt.Errorf("sandboxfs: %s changed while it was being opened", path))
	}
	if err := checkListable(r, path); err != nil {
		return fail(err)
	}
	return r, canon, nil
}

// closeRoots closes the Roots of mounts.
func closeRoots(mounts []Mount) {
	for _, m := range mounts {
		if m.Root != nil {
			_ = m.Root.Close()
		}
	}
}

// roots closes a set of os.Roots.
type roots []*os.Root

// Close implements io.Closer.
func (rs roots) Close() error {
	var errs []error
	for _, r := range rs {
		if err := r.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
