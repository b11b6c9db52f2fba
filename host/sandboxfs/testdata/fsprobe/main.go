//go:build wasip1

// Command fsprobe is a WASI test guest for package sandboxfs. Each argument
// is one operation, fields separated by "|"; it prints one line per
// operation: "<index>\t<result>", where result is "ok", "ok <payload>" or
// "err <ERRNO>".
//
// Most operations call WASI preview1 directly, relative to a preopened
// mount named by its guest path, so that paths reach the host unmodified by
// Go's os package. The go* operations use package os on absolute paths, as
// an ordinary Go guest would.
//
//	read|M|P           path_open (follow symlinks) + fd_read, payload %q
//	nofollow|M|P       the same without LOOKUP_SYMLINK_FOLLOW
//	write|M|P|DATA     path_open O_CREAT|O_TRUNC for writing + fd_write
//	openw|M|P          path_open an existing file for writing
//	create|M|P         path_open O_CREAT|O_EXCL
//	mkdir|M|P  rmdir|M|P  unlink|M|P
//	rename|M1|P1|M2|P2  link|M1|P1|M2|P2  symlink|TARGET|M|P
//	readlink|M|P       payload: the target
//	stat|M|P lstat|M|P payload: type=T size=N
//	statat|M|D|P       open folder D (relative to M), then stat P relative
//	                   to that folder's descriptor, as readdir-then-stat does
//	ls|M|P             O_DIRECTORY open + fd_readdir, payload: sorted names
//	truncate|M|P|N     fd_filestat_set_size
//	utimes|M|P         path_filestat_set_times (follow), both times
//	goread|ABS  gowrite|ABS|DATA  gols|ABS  gostat|ABS
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

//go:wasmimport wasi_snapshot_preview1 fd_prestat_get
func fd_prestat_get(fd int32, buf unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 fd_prestat_dir_name
func fd_prestat_dir_name(fd int32, buf unsafe.Pointer, n uint32) uint32

//go:wasmimport wasi_snapshot_preview1 path_open
func path_open(fd int32, dirflags uint32, p unsafe.Pointer, n uint32, oflags uint32, rights, inheriting uint64, fdflags uint32, newfd unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 fd_read
func fd_read(fd int32, iovs unsafe.Pointer, niovs uint32, nread unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 fd_write
func fd_write(fd int32, iovs unsafe.Pointer, niovs uint32, nwritten unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 fd_close
func fd_close(fd int32) uint32

//go:wasmimport wasi_snapshot_preview1 fd_readdir
func fd_readdir(fd int32, buf unsafe.Pointer, n uint32, cookie uint64, used unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 fd_filestat_set_size
func fd_filestat_set_size(fd int32, size uint64) uint32

//go:wasmimport wasi_snapshot_preview1 path_create_directory
func path_create_directory(fd int32, p unsafe.Pointer, n uint32) uint32

//go:wasmimport wasi_snapshot_preview1 path_remove_directory
func path_remove_directory(fd int32, p unsafe.Pointer, n uint32) uint32

//go:wasmimport wasi_snapshot_preview1 path_unlink_file
func path_unlink_file(fd int32, p unsafe.Pointer, n uint32) uint32

//go:wasmimport wasi_snapshot_preview1 path_rename
func path_rename(fd int32, p unsafe.Pointer, n uint32, fd2 int32, p2 unsafe.Pointer, n2 uint32) uint32

//go:wasmimport wasi_snapshot_preview1 path_link
func path_link(fd int32, flags uint32, p unsafe.Pointer, n uint32, fd2 int32, p2 unsafe.Pointer, n2 uint32) uint32

//go:wasmimport wasi_snapshot_preview1 path_symlink
func path_symlink(target unsafe.Pointer, tn uint32, fd int32, p unsafe.Pointer, n uint32) uint32

//go:wasmimport wasi_snapshot_preview1 path_readlink
func path_readlink(fd int32, p unsafe.Pointer, n uint32, buf unsafe.Pointer, bufLen uint32, used unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 path_filestat_get
func path_filestat_get(fd int32, flags uint32, p unsafe.Pointer, n uint32, buf unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 path_filestat_set_times
func path_filestat_set_times(fd int32, flags uint32, p unsafe.Pointer, n uint32, atim, mtim uint64, fstflags uint32) uint32

const (
	follow     = 1 // LOOKUP_SYMLINK_FOLLOW
	oCreat     = 1
	oDirectory = 2
	oExcl      = 4
	oTrunc     = 8
	rightRead  = 1 << 1
	rightWrite = 1 << 6
	rightDir   = 1 << 14
)

// errnoNames are WASI preview1 errno names, indexed by value.
var errnoNames = strings.Fields(`SUCCESS 2BIG ACCES ADDRINUSE ADDRNOTAVAIL AFNOSUPPORT AGAIN ALREADY
BADF BADMSG BUSY CANCELED CHILD CONNABORTED CONNREFUSED CONNRESET DEADLK DESTADDRREQ DOM DQUOT
EXIST FAULT FBIG HOSTUNREACH IDRM ILSEQ INPROGRESS INTR INVAL IO ISCONN ISDIR LOOP MFILE MLINK
MSGSIZE MULTIHOP NAMETOOLONG NETDOWN NETRESET NETUNREACH NFILE NOBUFS NODEV NOENT NOEXEC NOLCK
NOLINK NOMEM NOMSG NOPROTOOPT NOSPC NOSYS NOTCONN NOTDIR NOTEMPTY NOTRECOVERABLE NOTSOCK NOTSUP
NOTTY NXIO OVERFLOW OWNERDEAD PERM PIPE PROTO PROTONOSUPPORT PROTOTYPE RANGE ROFS SPIPE SRCH STALE
TIMEDOUT TXTBSY XDEV NOTCAPABLE`)

type errno uint32

func (e errno) Error() string {
	if int(e) < len(errnoNames) {
		return "E" + errnoNames[e]
	}
	return "E#" + strconv.Itoa(int(e))
}

func check(e uint32) error {
	if e == 0 {
		return nil
	}
	return errno(e)
}

var mounts = map[string]int32{}

func main() {
	for fd := int32(3); ; fd++ {
		var pre [8]byte
		if fd_prestat_get(fd, unsafe.Pointer(&pre[0])) != 0 {
			break
		}
		name := make([]byte, binary.LittleEndian.Uint32(pre[4:]))
		if len(name) == 0 || fd_prestat_dir_name(fd, unsafe.Pointer(&name[0]), uint32(len(name))) != 0 {
			continue
		}
		mounts[string(name)] = fd
	}
	for i, arg := range os.Args[1:] {
		payload, err := run(strings.Split(arg, "|"))
		switch {
		case err != nil:
			fmt.Printf("%d\terr %s\n", i, errName(err))
		case payload != "":
			fmt.Printf("%d\tok %s\n", i, payload)
		default:
			fmt.Printf("%d\tok\n", i)
		}
	}
}

func errName(err error) string {
	var e errno
	if errors.As(err, &e) {
		return e.Error()
	}
	var se syscall.Errno
	if errors.As(err, &se) {
		return errno(se).Error()
	}
	return strconv.Quote(err.Error())
}

// str returns a pointer to and the length of s's bytes (never nil).
func str(s string) (unsafe.Pointer, uint32) {
	b := append([]byte(s), 0)
	return unsafe.Pointer(&b[0]), uint32(len(s))
}

func mountFD(m string) (int32, error) {
	if fd, ok := mounts[m]; ok {
		return fd, nil
	}
	return 0, fmt.Errorf("no mount %q", m)
}

func open(m, p string, dirflags, oflags uint32, rights uint64) (int32, error) {
	dir, err := mountFD(m)
	if err != nil {
		return 0, err
	}
	ptr, n := str(p)
	var fd int32
	return fd, check(path_open(dir, dirflags, ptr, n, oflags, rights, rights, 0, unsafe.Pointer(&fd)))
}

func iov(b []byte) [2]uint32 {
	if len(b) == 0 {
		b = make([]byte, 1)[:0:1]
	}
	return [2]uint32{uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b)))), uint32(len(b))}
}

func readAll(fd int32) (string, error) {
	var out []byte
	buf := make([]byte, 4096)
	for {
		v := iov(buf)
		var n uint32
		if err := check(fd_read(fd, unsafe.Pointer(&v), 1, unsafe.Pointer(&n))); err != nil {
			return "", err
		}
		if n == 0 {
			return string(out), nil
		}
		out = append(out, buf[:n]...)
	}
}

func withFD(fd int32, err error, f func(int32) (string, error)) (string, error) {
	if err != nil {
		return "", err
	}
	defer fd_close(fd)
	return f(fd)
}

func pathOp(call func(int32, unsafe.Pointer, uint32) uint32, m, p string) error {
	dir, err := mountFD(m)
	if err != nil {
		return err
	}
	ptr, n := str(p)
	return check(call(dir, ptr, n))
}

func twoPaths(f []string) (int32, unsafe.Pointer, uint32, int32, unsafe.Pointer, uint32, error) {
	d1, err := mountFD(f[1])
	if err != nil {
		return 0, nil, 0, 0, nil, 0, err
	}
	d2, err := mountFD(f[3])
	if err != nil {
		return 0, nil, 0, 0, nil, 0, err
	}
	p1, n1 := str(f[2])
	p2, n2 := str(f[4])
	return d1, p1, n1, d2, p2, n2, nil
}

func run(f []string) (string, error) {
	switch f[0] {
	case "read", "nofollow":
		flags := uint32(follow)
		if f[0] == "nofollow" {
			flags = 0
		}
		fd, err := open(f[1], f[2], flags, 0, rightRead)
		return withFD(fd, err, func(fd int32) (string, error) {
			s, err := readAll(fd)
			return strconv.Quote(s), err
		})
	case "write":
		fd, err := open(f[1], f[2], follow, oCreat|oTrunc, rightRead|rightWrite)
		return withFD(fd, err, func(fd int32) (string, error) {
			v := iov([]byte(f[3]))
			var n uint32
			return "", check(fd_write(fd, unsafe.Pointer(&v), 1, unsafe.Pointer(&n)))
		})
	case "openw":
		fd, err := open(f[1], f[2], follow, 0, rightWrite)
		return withFD(fd, err, func(int32) (string, error) { return "", nil })
	case "create":
		fd, err := open(f[1], f[2], follow, oCreat|oExcl, rightRead|rightWrite)
		return withFD(fd, err, func(int32) (string, error) { return "", nil })
	case "truncate":
		size, _ := strconv.ParseUint(f[3], 10, 64)
		fd, err := open(f[1], f[2], follow, 0, rightRead|rightWrite)
		return withFD(fd, err, func(fd int32) (string, error) {
			return "", check(fd_filestat_set_size(fd, size))
		})
	case "mkdir":
		return "", pathOp(path_create_directory, f[1], f[2])
	case "rmdir":
		return "", pathOp(path_remove_directory, f[1], f[2])
	case "unlink":
		return "", pathOp(path_unlink_file, f[1], f[2])
	case "rename":
		d1, p1, n1, d2, p2, n2, err := twoPaths(f)
		if err != nil {
			return "", err
		}
		return "", check(path_rename(d1, p1, n1, d2, p2, n2))
	case "link":
		d1, p1, n1, d2, p2, n2, err := twoPaths(f)
		if err != nil {
			return "", err
		}
		return "", check(path_link(d1, 0, p1, n1, d2, p2, n2))
	case "symlink":
		dir, err := mountFD(f[2])
		if err != nil {
			return "", err
		}
		t, tn := str(f[1])
		p, n := str(f[3])
		return "", check(path_symlink(t, tn, dir, p, n))
	case "readlink":
		buf := make([]byte, 4096)
		var used uint32
		err := pathOp(func(dir int32, p unsafe.Pointer, n uint32) uint32 {
			return path_readlink(dir, p, n, unsafe.Pointer(&buf[0]), uint32(len(buf)), unsafe.Pointer(&used))
		}, f[1], f[2])
		return string(buf[:used]), err
	case "stat", "lstat":
		flags := uint32(follow)
		if f[0] == "lstat" {
			flags = 0
		}
		var st [64]byte
		err := pathOp(func(dir int32, p unsafe.Pointer, n uint32) uint32 {
			return path_filestat_get(dir, flags, p, n, unsafe.Pointer(&st[0]))
		}, f[1], f[2])
		return fmt.Sprintf("type=%d size=%d", st[16], binary.LittleEndian.Uint64(st[32:])), err
	case "statat":
		fd, err := open(f[1], f[2], follow, oDirectory, rightRead|rightDir)
		return withFD(fd, err, func(dir int32) (string, error) {
			var st [64]byte
			p, n := str(f[3])
			err := check(path_filestat_get(dir, follow, p, n, unsafe.Pointer(&st[0])))
			return fmt.Sprintf("type=%d size=%d", st[16], binary.LittleEndian.Uint64(st[32:])), err
		})
	case "utimes":
		const t = 1_000_000_000 * 1_000_000_000 // 2001-09-09
		return "", pathOp(func(dir int32, p unsafe.Pointer, n uint32) uint32 {
			return path_filestat_set_times(dir, follow, p, n, t, t, 1|4)
		}, f[1], f[2])
	case "ls":
		fd, err := open(f[1], f[2], follow, oDirectory, rightRead|rightDir)
		return withFD(fd, err, list)
	case "goread":
		b, err := os.ReadFile(f[1])
		return strconv.Quote(string(b)), err
	case "gowrite":
		return "", os.WriteFile(f[1], []byte(f[2]), 0o644)
	case "gols":
		ents, err := os.ReadDir(f[1])
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return strings.Join(names, ","), err
	case "gostat":
		fi, err := os.Stat(f[1])
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("dir=%v size=%d", fi.IsDir(), fi.Size()), nil
	}
	return "", fmt.Errorf("unknown op %q", f[0])
}

// list reads a whole directory with fd_readdir and returns the sorted names,
// without "." and "..".
func list(fd int32) (string, error) {
	var names []string
	buf := make([]byte, 4096)
	cookie := uint64(0)
	for {
		var used uint32
		if err := check(fd_readdir(fd, unsafe.Pointer(&buf[0]), uint32(len(buf)), cookie, unsafe.Pointer(&used))); err != nil {
			return "", err
		}
		pos := uint32(0)
		for pos+24 <= used {
			namlen := binary.LittleEndian.Uint32(buf[pos+16:])
			if pos+24+namlen > used {
				break
			}
			cookie = binary.LittleEndian.Uint64(buf[pos:])
			if name := string(buf[pos+24 : pos+24+namlen]); name != "." && name != ".." {
				names = append(names, name)
			}
			pos += 24 + namlen
		}
		if used < uint32(len(buf)) {
			break
		}
	}
	slices.Sort(names)
	return strings.Join(names, ","), nil
}
