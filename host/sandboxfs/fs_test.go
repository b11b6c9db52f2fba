package sandboxfs

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

func openFS(t *testing.T, dir string, ro bool) *rootFS {
	t.Helper()
	r, err := os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { r.Close() })
	return &rootFS{root: r, readOnly: ro}
}

// TestEscapeErrorDetected guards escapeMsg: if a Go release rewords
// os.Root's escape error, escapes would surface as EIO instead of EPERM.
func TestEscapeErrorDetected(t *testing.T) {
	fx := newFixture(t)
	r, err := os.OpenRoot(fx.mnt)
	must(t, err)
	defer r.Close()
	for _, name := range []string{"../outside/secret.txt", "rel-link", "abs-link", "dir-link/secret.txt"} {
		_, err := r.Open(name)
		if !isEscape(err) || errnoOf(err) != experimentalsys.EPERM {
			t.Errorf("Open(%q): %v is not detected as an escape", name, err)
		}
	}
}

// TestFSLevelEscapes calls the filesystem directly with paths wazero's WASI
// layer would have cleaned or refused, as another embedder (or a future
// wazero) might pass them. wazero's DirFS is the naive baseline.
func TestFSLevelEscapes(t *testing.T) {
	E := experimentalsys.EPERM
	for _, ro := range []bool{false, true} {
		fx := newFixture(t)
		before := snapshot(t, fx.outside)
		fsys := openFS(t, fx.mnt, ro)
		w := E // expected errno for writes
		if ro {
			w = experimentalsys.EROFS
		}
		abs := filepath.Join(fx.outside, "secret.txt")
		for _, p := range []string{"../outside/secret.txt", "sub/../../outside/secret.txt", "/../outside/secret.txt", "rel-link", "dir-link/secret.txt"} {
			if _, errno := fsys.OpenFile(p, experimentalsys.O_RDONLY, 0); errno != E {
				t.Errorf("ro=%v OpenFile(%q) = %v, want EPERM", ro, p, errno)
			}
			if _, errno := fsys.Stat(p); errno != E {
				t.Errorf("ro=%v Stat(%q) = %v, want EPERM", ro, p, errno)
			}
		}
		// A leading "/" means the mount's root (wazero's join for a folder
		// opened on it), so a host-absolute path names a file inside the
		// mount, which does not exist.
		if _, errno := fsys.Stat(abs); errno != experimentalsys.ENOENT {
			t.Errorf("ro=%v Stat(%q) = %v, want ENOENT (resolved inside the mount)", ro, abs, errno)
		}
		if st, errno := fsys.Stat("/hello.txt"); errno != 0 || st.Size != 5 {
			t.Errorf("ro=%v Stat(/hello.txt) = %v, %v; want the mount's hello.txt", ro, st.Size, errno)
		}
		for name, errno := range map[string]experimentalsys.Errno{
			"lstat":    second(fsys.Lstat("../outside/secret.txt")),
			"readlink": second(fsys.Readlink("../mnt/rel-link")),
			"create":   second(fsys.OpenFile("../outside/new.txt", experimentalsys.O_RDWR|experimentalsys.O_CREAT, 0o644)),
			"mkdir":    fsys.Mkdir("../outside/d", 0o755),
			"rename":   fsys.Rename("hello.txt", "../outside/moved.txt"),
			"rename2":  fsys.Rename("../outside/secret.txt", "stolen.txt"),
			"unlink":   fsys.Unlink("../outside/victim.txt"),
			"rmdir":    fsys.Rmdir("../outside"),
			"utimens":  fsys.Utimens("../outside/victim.txt", 0, 0),
		} {
			want := w
			if name == "lstat" || name == "readlink" {
				want = E
			}
			if errno != want {
				t.Errorf("ro=%v %s outside = %v, want %v", ro, name, errno, want)
			}
		}
		if after := snapshot(t, fx.outside); after != before {
			t.Errorf("ro=%v: outside folder changed:\n%s\nwas:\n%s", ro, after, before)
		}

		// The same "../" open escapes wazero's DirFS: the test can fail.
		var naive experimentalsys.FS = sysfs.DirFS(fx.mnt)
		if ro {
			naive = &sysfs.ReadFS{FS: naive}
		}
		f, errno := naive.OpenFile("../outside/secret.txt", experimentalsys.O_RDONLY, 0)
		if errno != 0 {
			t.Fatalf("ro=%v: naive DirFS no longer escapes: %v", ro, errno)
		}
		buf := make([]byte, 100)
		n, _ := f.Read(buf)
		f.Close()
		if !strings.Contains(string(buf[:n]), fx.marker) {
			t.Errorf("ro=%v: naive DirFS escape did not read the marker", ro)
		}
	}
}

func second[T any](_ T, e experimentalsys.Errno) experimentalsys.Errno { return e }

func TestErrnoMapping(t *testing.T) {
	fx := newFixture(t)
	rw := openFS(t, fx.mnt, false)
	ro := openFS(t, fx.mnt, true)
	const (
		rd   = experimentalsys.O_RDONLY
		rdwr = experimentalsys.O_RDWR
	)
	open := func(fsys *rootFS, p string, flag experimentalsys.Oflag) experimentalsys.Errno {
		f, errno := fsys.OpenFile(p, flag, 0o644)
		if errno == 0 {
			f.Close()
		}
		return errno
	}
	for _, tc := range []struct {
		what string
		got  experimentalsys.Errno
		want experimentalsys.Errno
	}{
		{"open missing", open(rw, "missing", rd), experimentalsys.ENOENT},
		{"open O_CREAT|O_EXCL existing", open(rw, "hello.txt", rdwr|experimentalsys.O_CREAT|experimentalsys.O_EXCL), experimentalsys.EEXIST},
		{"open file O_DIRECTORY", open(rw, "hello.txt", rd|experimentalsys.O_DIRECTORY), experimentalsys.ENOTDIR},
		{"open below a file", open(rw, "hello.txt/x", rd), experimentalsys.ENOTDIR},
		{"open folder for writing", open(rw, "sub", rdwr), experimentalsys.EISDIR},
		{"open symlink O_NOFOLLOW", open(rw, "in-link", rd|experimentalsys.O_NOFOLLOW), experimentalsys.ELOOP},
		{"open inside symlink", open(rw, "in-link", rd), 0},
		{"open inside folder symlink", open(rw, "in-dirlink/inner.txt", rd), 0},
		{"mkdir existing", rw.Mkdir("sub", 0o755), experimentalsys.EEXIST},
		{"rmdir file", rw.Rmdir("hello.txt"), experimentalsys.ENOTDIR},
		{"rmdir non-empty", rw.Rmdir("sub"), experimentalsys.ENOTEMPTY},
		{"rmdir missing", rw.Rmdir("missing"), experimentalsys.ENOENT},
		{"unlink folder", rw.Unlink("sub"), experimentalsys.EISDIR},
		{"unlink missing", rw.Unlink("missing"), experimentalsys.ENOENT},
		{"rename missing", rw.Rename("missing", "x"), experimentalsys.ENOENT},
		{"symlink", rw.Symlink("hello.txt", "s"), experimentalsys.EPERM},
		{"link", rw.Link("hello.txt", "h"), experimentalsys.EPERM},
		{"chmod", rw.Chmod("hello.txt", 0o777), experimentalsys.EPERM},
		{"readlink regular file", second(rw.Readlink("hello.txt")), experimentalsys.EINVAL},
		{"ro open for writing", open(ro, "hello.txt", rdwr), experimentalsys.EROFS},
		{"ro open O_TRUNC", open(ro, "hello.txt", rd|experimentalsys.O_TRUNC), experimentalsys.EROFS},
		{"ro create", open(ro, "new.txt", rdwr|experimentalsys.O_CREAT), experimentalsys.EROFS},
		{"ro append", open(ro, "hello.txt", experimentalsys.O_WRONLY|experimentalsys.O_APPEND), experimentalsys.EROFS},
		{"ro mkdir", ro.Mkdir("d", 0o755), experimentalsys.EROFS},
		{"ro rmdir", ro.Rmdir("sub"), experimentalsys.EROFS},
		{"ro unlink", ro.Unlink("hello.txt"), experimentalsys.EROFS},
		{"ro rename", ro.Rename("hello.txt", "x"), experimentalsys.EROFS},
		{"ro utimens", ro.Utimens("hello.txt", 0, 0), experimentalsys.EROFS},
		{"ro chmod", ro.Chmod("hello.txt", 0o644), experimentalsys.EROFS},
		{"ro symlink", ro.Symlink("hello.txt", "s"), experimentalsys.EPERM},
		{"ro read", open(ro, "hello.txt", rd), 0},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	if got, errno := rw.Readlink("in-link"); errno != 0 || got != "hello.txt" {
		t.Errorf("readlink in-link = %q, %v", got, errno)
	}
}

func TestFileOps(t *testing.T) {
	fx := newFixture(t)
	ro := openFS(t, fx.mnt, true)
	f, errno := ro.OpenFile("hello.txt", experimentalsys.O_RDONLY, 0)
	must(t, errnoErr(errno))
	if _, errno := f.Write([]byte("x")); errno != experimentalsys.EBADF {
		t.Errorf("write on read-only mount: %v", errno)
	}
	if errno := f.Truncate(0); errno != experimentalsys.EBADF {
		t.Errorf("truncate on read-only mount: %v", errno)
	}
	buf := make([]byte, 3)
	if n, errno := f.Pread(buf, 2); errno != 0 || string(buf[:n]) != "llo" {
		t.Errorf("pread = %q, %v", buf[:n], errno)
	}
	f.Close()
	if _, errno := f.Read(buf); errno != experimentalsys.EBADF {
		t.Errorf("read after close: %v", errno)
	}

	d, errno := ro.OpenFile(".", experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, 0)
	must(t, errnoErr(errno))
	defer d.Close()
	if _, errno := d.Read(buf); errno != experimentalsys.EISDIR {
		t.Errorf("read folder: %v", errno)
	}
	if _, errno := d.Seek(1, io.SeekStart); errno != experimentalsys.EISDIR {
		t.Errorf("seek folder: %v", errno)
	}
	names := func() []string {
		ents, errno := d.Readdir(-1)
		must(t, errnoErr(errno))
		var out []string
		for _, e := range ents {
			if e.Ino == 0 && os.PathSeparator == '/' {
				t.Errorf("%s: no inode", e.Name)
			}
			out = append(out, e.Name+":"+e.Type.String())
		}
		slices.Sort(out)
		return out
	}
	first := names()
	if _, errno := d.Seek(0, io.SeekStart); errno != 0 {
		t.Fatal(errno)
	}
	if again := names(); !slices.Equal(first, again) || len(first) != 8 {
		t.Errorf("readdir after rewind = %v, first %v", again, first)
	}
	if !slices.Contains(first, "dir-link:L---------") || !slices.Contains(first, "sub:d---------") {
		t.Errorf("readdir types: %v", first)
	}
}

// Writes on a read-write mount: Write and Pwrite land where they say, an
// empty buffer writes nothing, and a positional write to a file opened
// for appending is EINVAL.
func TestFileWrites(t *testing.T) {
	fx := newFixture(t)
	rw := openFS(t, fx.mnt, false)
	f, errno := rw.OpenFile("new.txt", experimentalsys.O_RDWR|experimentalsys.O_CREAT, 0o644)
	must(t, errnoErr(errno))
	defer f.Close()
	if n, errno := f.Write([]byte("hello")); n != 5 || errno != 0 {
		t.Errorf("write = %d, %v", n, errno)
	}
	if n, errno := f.Pwrite([]byte("J"), 0); n != 1 || errno != 0 {
		t.Errorf("pwrite = %d, %v", n, errno)
	}
	if n, errno := f.Write(nil); n != 0 || errno != 0 {
		t.Errorf("empty write = %d, %v", n, errno)
	}
	buf := make([]byte, 8)
	if n, errno := f.Pread(buf, 0); errno != 0 || string(buf[:n]) != "Jello" {
		t.Errorf("pread = %q, %v", buf[:n], errno)
	}
	a, errno := rw.OpenFile("new.txt", experimentalsys.O_WRONLY|experimentalsys.O_APPEND, 0)
	must(t, errnoErr(errno))
	defer a.Close()
	if _, errno := a.Pwrite([]byte("x"), 0); errno != experimentalsys.EINVAL {
		t.Errorf("pwrite on an appending file: %v, want EINVAL", errno)
	}
	if n, errno := a.Write([]byte("!")); n != 1 || errno != 0 {
		t.Errorf("append = %d, %v", n, errno)
	}
	if n, errno := f.Pread(buf, 0); errno != 0 || string(buf[:n]) != "Jello!" {
		t.Errorf("after the append: %q, %v", buf[:n], errno)
	}
}

func errnoErr(e experimentalsys.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func TestFSConfigValidation(t *testing.T) {
	fx := newFixture(t)
	link := filepath.Join(fx.base, "mnt-link")
	must(t, os.Symlink("mnt", link))
	sub := filepath.Join(fx.mnt, "sub")
	for _, tc := range []struct {
		mounts []Mount
		err    string // "" = must succeed
	}{
		{nil, ""},
		{[]Mount{{HostPath: "mnt"}}, "not absolute"},
		{[]Mount{{HostPath: link}}, "not canonical"},
		{[]Mount{{HostPath: fx.mnt + "/../mnt"}}, "not canonical"},
		{[]Mount{{HostPath: filepath.Join(fx.base, "missing")}}, "no such file"},
		{[]Mount{{HostPath: filepath.Join(fx.mnt, "hello.txt")}}, "not a directory"},
		{[]Mount{{HostPath: fx.mnt}, {HostPath: sub, ReadOnly: true}}, "inside read-write mount"},
		{[]Mount{{HostPath: fx.mnt}, {HostPath: fx.mnt, ReadOnly: true}}, "inside read-write mount"},
		{[]Mount{{HostPath: fx.mnt, ReadOnly: true}, {HostPath: sub}}, ""},
		{[]Mount{{HostPath: fx.mnt}, {HostPath: fx.mnt}, {HostPath: fx.other, ReadOnly: true}}, ""},
	} {
		_, closer, err := FSConfig(tc.mounts)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%v: %v", tc.mounts, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v: error %v, want %q", tc.mounts, err, tc.err)
		}
		if err == nil {
			must(t, closer.Close())
		}
	}
	got, err := Canonical(link)
	if err != nil || got != fx.mnt {
		t.Errorf("Canonical(symlink) = %q, %v; want %q", got, err, fx.mnt)
	}
	if _, closer, err := FSConfig([]Mount{{HostPath: got}}); err != nil {
		t.Error(err)
	} else {
		closer.Close()
	}
}
