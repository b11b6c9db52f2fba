//go:build unix

package sandboxfs

import (
	"io"
	"io/fs"
	"os"
	"syscall"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"golang.org/x/sys/unix"
)

// openNonblock keeps opening a FIFO from blocking; OpenFile then refuses it.
// It has no effect on regular files and directories.
const openNonblock = syscall.O_NONBLOCK

// readdir lists up to n entries (all if n <= 0). Types and inode numbers
// come from fstatat relative to the directory's descriptor, so no path is
// resolved outside the root. An entry that vanished meanwhile is reported
// with inode 0 and an irregular type.
func readdir(dir *os.File, n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	names, err := dir.Readdirnames(n)
	if err != nil && err != io.EOF {
		return nil, fileErrno(err)
	}
	out := make([]experimentalsys.Dirent, 0, len(names))
	rc, err := dir.SyscallConn()
	if err != nil {
		return nil, fileErrno(err)
	}
	err = rc.Control(func(fd uintptr) {
		for _, name := range names {
			d := experimentalsys.Dirent{Name: name, Type: fs.ModeIrregular}
			var st unix.Stat_t
			if unix.Fstatat(int(fd), name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				d.Ino, d.Type = uint64(st.Ino), modeType(uint32(st.Mode))
			}
			out = append(out, d)
		}
	})
	if err != nil {
		return nil, fileErrno(err)
	}
	return out, 0
}

func modeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}
