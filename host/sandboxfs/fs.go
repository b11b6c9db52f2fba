package sandboxfs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// rootFS is a wazero filesystem confined to one os.Root. Paths are relative
// to the root, slash-separated, as wazero's WASI layer hands them over.
// It must stay a pointer type: wazero compares FS values to refuse renames
// and links across mounts.
type rootFS struct {
	experimentalsys.UnimplementedFS
	root     *os.Root
	readOnly bool
	onEscape func(name string) // see Mount.OnEscape; may be nil
}

// errno is errnoOf, reporting an escape to onEscape first.
func (r *rootFS) errno(name string, err error) experimentalsys.Errno {
	if r.onEscape != nil && err != nil && isEscape(err) {
		r.onEscape(name)
	}
	return errnoOf(err)
}

var _ experimentalsys.FS = (*rootFS)(nil)

// rel makes name relative to the root. wazero joins a path to the folder
// descriptor it is relative to as folder + "/" + path, and names a folder
// opened on the mount itself "", so a stat after opening "." arrives as
// "/hello.txt"; os.Root would refuse that as an escape. Absolute paths from
// the guest never get here: wazero refuses them (EPERM) before calling the
// FS. Whatever rel returns, os.Root still confines it.
func rel(name string) string {
	if len(name) > 1 && name[0] == '/' {
		return name[1:]
	}
	if name == "/" {
		return "."
	}
	return name
}

// writeFlags are the open flags that need a writable mount.
const writeFlags = experimentalsys.O_RDWR | experimentalsys.O_WRONLY |
	experimentalsys.O_CREAT | experimentalsys.O_TRUNC | experimentalsys.O_APPEND

// OpenFile implements experimentalsys.FS.
func (r *rootFS) OpenFile(name string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if r.readOnly && flag&writeFlags != 0 {
		return nil, experimentalsys.EROFS
	}
	create := flag&experimentalsys.O_CREAT != 0
	excl := create && flag&experimentalsys.O_EXCL != 0
	// os.Root always follows symlinks that stay inside it; emulate
	// O_NOFOLLOW for the last component. A race here can only make the open
	// follow a link, and os.Root still keeps that inside the root.
	if flag&experimentalsys.O_NOFOLLOW != 0 && !excl {
		if fi, err := r.root.Lstat(rel(name)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, experimentalsys.ELOOP
		}
	}
	f, err := r.root.OpenFile(rel(name), osFlags(flag), perm&fs.ModePerm)
	if err != nil {
		return nil, r.errno(name, err)
	}
	file := &rootFile{f: f, readOnly: r.readOnly, append: flag&experimentalsys.O_APPEND != 0}
	st, errno := file.Stat()
	switch {
	case errno != 0:
	case st.Mode.IsDir():
	case flag&experimentalsys.O_DIRECTORY != 0:
		errno = experimentalsys.ENOTDIR
	case !st.Mode.IsRegular():
		// Device nodes, FIFOs and sockets are not files a plugin should
		// touch; the open itself was non-blocking where the OS allows.
		errno = experimentalsys.EPERM
	}
	if errno != 0 {
		_ = f.Close()
		return nil, errno
	}
	return file, 0
}

// osFlags translates wazero open flags to os flags. O_DIRECTORY and
// O_NOFOLLOW are checked by OpenFile; O_NONBLOCK and the sync flags other
// than O_SYNC are dropped.
func osFlags(flag experimentalsys.Oflag) int {
	var f int
	switch flag & (experimentalsys.O_RDWR | experimentalsys.O_WRONLY) {
	case experimentalsys.O_RDWR:
		f = os.O_RDWR
	case experimentalsys.O_WRONLY:
		f = os.O_WRONLY
	default:
		f = os.O_RDONLY
	}
	for _, m := range []struct {
		from experimentalsys.Oflag
		to   int
	}{
		{experimentalsys.O_APPEND, os.O_APPEND},
		{experimentalsys.O_CREAT, os.O_CREATE},
		{experimentalsys.O_EXCL, os.O_EXCL},
		{experimentalsys.O_TRUNC, os.O_TRUNC},
		{experimentalsys.O_SYNC, os.O_SYNC},
	} {
		if flag&m.from != 0 {
			f |= m.to
		}
	}
	return f | openNonblock
}

// Lstat implements experimentalsys.FS.
func (r *rootFS) Lstat(name string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.root.Lstat(rel(name))
	if err != nil {
		return sys.Stat_t{}, r.errno(name, err)
	}
	return sys.NewStat_t(fi), 0
}

// Stat implements experimentalsys.FS.
func (r *rootFS) Stat(name string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.root.Stat(rel(name))
	if err != nil {
		return sys.Stat_t{}, r.errno(name, err)
	}
	return sys.NewStat_t(fi), 0
}

// Mkdir implements experimentalsys.FS.
func (r *rootFS) Mkdir(name string, perm fs.FileMode) experimentalsys.Errno {
	if r.readOnly {
		return experimentalsys.EROFS
	}
	return r.errno(name, r.root.Mkdir(rel(name), perm&fs.ModePerm))
}

// Chmod implements experimentalsys.FS: refused, so a guest cannot make
// files executable or world-writable on the host.
func (r *rootFS) Chmod(string, fs.FileMode) experimentalsys.Errno {
	if r.readOnly {
		return experimentalsys.EROFS
	}
	return experimentalsys.EPERM
}

// Rename implements experimentalsys.FS. Both paths resolve inside the root;
// wazero itself refuses renames between two mounts (ENOSYS).
func (r *rootFS) Rename(from, to string) experimentalsys.Errno {
	if r.readOnly {
		return experimentalsys.EROFS
	}
	return r.errno(from+" -> "+to, r.root.Rename(rel(from), rel(to)))
}

// Rmdir implements experimentalsys.FS.
func (r *rootFS) Rmdir(name string) experimentalsys.Errno { return r.remove(name, true) }

// Unlink implements experimentalsys.FS. A symlink is removed itself, never
// its target.
func (r *rootFS) Unlink(name string) experimentalsys.Errno { return r.remove(name, false) }

// remove is Rmdir (dir) and Unlink (!dir): name, not followed if it is a
// symlink, is removed only if it is a folder (dir) or not (!dir); the
// other kind is ENOTDIR or EISDIR.
func (r *rootFS) remove(name string, dir bool) experimentalsys.Errno {
	if r.readOnly {
		return experimentalsys.EROFS
	}
	fi, err := r.root.Lstat(rel(name))
	if err != nil {
		return r.errno(name, err)
	}
	switch {
	case dir && !fi.IsDir():
		return experimentalsys.ENOTDIR
	case !dir && fi.IsDir():
		return experimentalsys.EISDIR
	}
	return r.errno(name, r.root.Remove(rel(name)))
}

// Link implements experimentalsys.FS: hard links are refused.
func (r *rootFS) Link(string, string) experimentalsys.Errno { return experimentalsys.EPERM }

// Symlink implements experimentalsys.FS: symbolic links are refused.
func (r *rootFS) Symlink(string, string) experimentalsys.Errno { return experimentalsys.EPERM }

// Readlink implements experimentalsys.FS. It returns the target only when
// it is relative and, joined to the link's directory, stays inside the
// root; otherwise EPERM, so that host paths outside are not revealed.
func (r *rootFS) Readlink(name string) (string, experimentalsys.Errno) {
	target, err := r.root.Readlink(rel(name))
	if err != nil {
		return "", r.errno(name, err)
	}
	t := filepath.ToSlash(target)
	if filepath.IsAbs(target) || path.IsAbs(t) || !fs.ValidPath(path.Join(path.Dir(name), t)) {
		return "", experimentalsys.EPERM
	}
	return t, 0
}

// Utimens implements experimentalsys.FS. Like utimensat without
// AT_SYMLINK_NOFOLLOW, it follows a final symlink, inside the root only.
func (r *rootFS) Utimens(name string, atim, mtim int64) experimentalsys.Errno {
	if r.readOnly {
		return experimentalsys.EROFS
	}
	return r.errno(name, r.root.Chtimes(rel(name), nanosToTime(atim), nanosToTime(mtim)))
}

// nanosToTime maps UTIME_OMIT to the zero time, which os leaves unchanged.
func nanosToTime(n int64) time.Time {
	if n == experimentalsys.UTIME_OMIT {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// escapeMsg is the text of os.Root's unexported errPathEscapes.
// TestEscapeErrorDetected fails if a Go release changes it.
const escapeMsg = "path escapes from parent"

// errnoOf maps an os or os.Root error to an errno. Escapes from the root
// become EPERM; errors carrying a system errno keep it; anything else is EIO.
func errnoOf(err error) experimentalsys.Errno {
	if err == nil {
		return 0
	}
	if isEscape(err) {
		return experimentalsys.EPERM
	}
	return experimentalsys.UnwrapOSError(err)
}

// isEscape reports whether err is os.Root refusing a path that leaves it.
func isEscape(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == escapeMsg {
			return true
		}
	}
	return false
}
