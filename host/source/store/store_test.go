package store

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestOpenPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "mcpwasm")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"", "blobs/sha256", "records", "tmp"} {
		st, err := os.Stat(filepath.Join(s.Dir(), sub))
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v", sub, err, st.Mode())
		}
	}
	if runtime.GOOS == "windows" {
		return
	}
	// Writable by group or others: refused, naming the folder and the mode.
	os.Chmod(filepath.Join(dir, "blobs"), 0o770)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "blobs")) || !strings.Contains(err.Error(), "0770") {
		t.Fatalf("group-writable: %v", err)
	}
	os.Chmod(filepath.Join(dir, "blobs"), 0o700)
	os.Chmod(dir, 0o777)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Fatalf("world-writable: %v", err)
	}
	os.Chmod(dir, 0o700)
	// Another user's folder (root can make one): refused.
	if os.Getuid() == 0 {
		os.Chown(filepath.Join(dir, "records"), 65534, 65534)
		if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "owned by user 65534") {
			t.Fatalf("another user's folder: %v", err)
		}
		os.Chown(filepath.Join(dir, "records"), 0, 0)
	}
	// A file where a folder should be.
	os.RemoveAll(filepath.Join(dir, "tmp"))
	os.WriteFile(filepath.Join(dir, "tmp"), nil, 0o600)
	if _, err := Open(dir); err == nil {
		t.Fatal("a file as tmp/ was accepted")
	}
}

func TestWriteReadVerified(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("plugin bytes "), 10000)
	d := Digest(data)
	var seen int64
	n, err := s.Write(d, bytes.NewReader(data), 1<<20, func(k int64) { seen = k })
	if err != nil || n != int64(len(data)) || seen != n {
		t.Fatalf("write: %d %v (progress %d)", n, err, seen)
	}
	if st, _ := os.Stat(s.Path(d)); st.Mode().Perm()&0o077 != 0 {
		t.Fatalf("blob mode %v", st.Mode())
	}
	got, err := s.Read(d, 1<<20)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read: %v", err)
	}
	// Content that is not what it claims: nothing stored.
	other := Digest([]byte("other"))
	_, err = s.Write(other, bytes.NewReader(data), 1<<20, nil)
	var mm *MismatchError
	if !errors.As(err, &mm) || mm.Want != other || mm.Got != d || s.Has(other) {
		t.Fatalf("mismatch: %v", err)
	}
	// Over the limit: stopped at the limit, nothing stored.
	big := Digest(append(data, 'x'))
	_, err = s.Write(big, bytes.NewReader(append(data, 'x')), int64(len(data)), nil)
	var tl *TooLargeError
	if !errors.As(err, &tl) || s.Has(big) {
		t.Fatalf("too large: %v", err)
	}
	if _, err := s.Read(d, int64(len(data))-1); err == nil {
		t.Fatal("read over the limit")
	}
	// No temporary file is left behind.
	if left, _ := os.ReadDir(filepath.Join(s.Dir(), "tmp")); len(left) != 0 {
		t.Fatalf("tmp/ holds %d files", len(left))
	}
	// A blob changed on disk is reported naming both digests, and removed.
	os.WriteFile(s.Path(d), []byte("flipped"), 0o600)
	_, err = s.Read(d, 1<<20)
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Want != d || ce.Got != Digest([]byte("flipped")) || !strings.Contains(err.Error(), d) || s.Has(d) {
		t.Fatalf("corrupt: %v", err)
	}
	if _, err := s.Read(d, 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after removal: %v", err)
	}
	// Names that are not digests never reach the file system.
	for _, bad := range []string{"sha256:../../etc/passwd", "sha256:ABC", "md5:" + strings.Repeat("0", 32), ""} {
		if _, err := s.Read(bad, 10); err == nil || s.Has(bad) {
			t.Fatalf("%q accepted", bad)
		}
		if _, err := s.Write(bad, bytes.NewReader(nil), 10, nil); err == nil {
			t.Fatalf("%q written", bad)
		}
	}
}

func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte{7}, 1<<20)
	d := Digest(data)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(dir) // as separate processes would
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := s.Write(d, bytes.NewReader(data), 2<<20, nil); err != nil {
				t.Error(err)
			}
			if b, err := s.Read(d, 2<<20); err != nil || !bytes.Equal(b, data) {
				t.Errorf("read while others write: %v", err)
			}
		}()
	}
	wg.Wait()
}

func TestRecords(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	type rec struct{ Digests []string }
	var r rec
	if ok, err := s.ReadRecord("sigs", "k", &r); ok || err != nil {
		t.Fatalf("missing: %v %v", ok, err)
	}
	if err := s.WriteRecord("sigs", "k", rec{[]string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.ReadRecord("sigs", "k", &r); !ok || err != nil || r.Digests[0] != "a" {
		t.Fatalf("read: %v %v %v", ok, err, r)
	}
	if ok, _ := s.ReadRecord("sigs", "other", &r); ok {
		t.Fatal("another key's record")
	}
	os.WriteFile(s.recordPath("sigs", "k"), []byte("{"), 0o600)
	if _, err := s.ReadRecord("sigs", "k", &r); err == nil {
		t.Fatal("a broken record was read")
	}
}

// TestBlobStreamVerified: a blob opened as a stream is verified at the end;
// one whose bytes were changed on disk is a *CorruptError and is removed,
// and one over the limit is refused at open.
func TestBlobStreamVerified(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "mcpwasm"))
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("layer "), 1000)
	d, err := s.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	read := func() ([]byte, error) {
		bl, err := s.Open(d, 1<<20)
		if err != nil {
			return nil, err
		}
		defer bl.Close()
		head := make([]byte, 10)
		bl.Read(head)
		return head, bl.Verify()
	}
	if head, err := read(); err != nil || !bytes.Equal(head, data[:10]) {
		t.Fatalf("intact blob: %q %v", head, err)
	}
	if _, err := s.Open(d, 100); err == nil || !strings.Contains(err.Error(), "over the 100-byte limit") {
		t.Fatalf("over the limit: %v", err)
	}
	tampered := append([]byte(nil), data...)
	tampered[len(tampered)-1] ^= 1
	os.WriteFile(s.Path(d), tampered, 0o600)
	var corrupt *CorruptError
	if _, err := read(); !errors.As(err, &corrupt) {
		t.Fatalf("tampered blob (last byte, past what was read): %v, want *CorruptError", err)
	}
	if _, err := s.Open(d, 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a corrupt blob is removed: %v", err)
	}
}
