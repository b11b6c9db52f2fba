// Package store keeps downloaded plugins, their manifests and their
// signatures by sha256 digest in a folder private to the user.
//
// Layout under the store folder (by default os.UserCacheDir()/mcpwasm):
//
//	blobs/sha256/<hex>         content, named by the sha256 of its bytes
//	records/<kind>/<hex>.json  small mutable records (what a registry said
//	                           about signatures), named by the sha256 of a key
//	tmp/                       files being written
//
// Every write goes to a temporary file in tmp/, is checked against its
// digest, synced and renamed into place, so a reader never sees a partial
// blob. Every read hashes the bytes again: a blob that does not match its
// name is reported (naming both digests) and removed. The folder and its
// subfolders must belong to the current user and must not be writable by
// group or others; Open refuses them otherwise.
package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/mcpwasm/mcpwasm/host/internal/private"
)

// Store is a content-addressed folder. Its methods are safe for concurrent
// use, also by several processes: writes are atomic renames.
type Store struct {
	dir string
}

// DefaultDir is os.UserCacheDir()/mcpwasm, or "" when there is no user
// cache folder ($XDG_CACHE_HOME and $HOME unset).
func DefaultDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "mcpwasm")
}

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// CheckDigest reports whether d is a sha256 digest in the form the store
// names blobs by: "sha256:" and 64 lowercase hex digits.
func CheckDigest(d string) error {
	if !digestRE.MatchString(d) {
		return fmt.Errorf("%q is not a sha256 digest (sha256:<64 lowercase hex digits>)", d)
	}
	return nil
}

// Digest returns the sha256 digest of b in the store's form.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Open opens the store in dir, creating it (mode 0700) if needed. It
// refuses a folder, or one of its subfolders, that another user owns or that
// group or others may write to.
func Open(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("no plugin store folder: no user cache folder ($XDG_CACHE_HOME and $HOME unset)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{"", "blobs", filepath.Join("blobs", "sha256"), "records", "tmp"} {
		p := filepath.Join(abs, sub)
		if err := os.MkdirAll(p, 0o700); err != nil {
			return nil, fmt.Errorf("plugin store: %w", err)
		}
		if err := private.Dir(p); err != nil {
			return nil, fmt.Errorf("plugin store: %w", err)
		}
	}
	return &Store{dir: abs}, nil
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// Path is where the blob with digest d is (or would be) kept.
func (s *Store) Path(d string) string {
	return filepath.Join(s.dir, "blobs", "sha256", d[len("sha256:"):])
}

// Has reports whether the store holds a blob named d (unverified: Read
// verifies).
func (s *Store) Has(d string) bool {
	if CheckDigest(d) != nil {
		return false
	}
	st, err := os.Stat(s.Path(d))
	return err == nil && st.Mode().IsRegular()
}

// CorruptError is a stored blob whose bytes do not hash to its name.
type CorruptError struct {
	Path, Want, Got string
}

// Error names the corrupt file and both digests.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("plugin store: %s is corrupt: named %s, its bytes hash to %s (removed; it is fetched again)", e.Path, e.Want, e.Got)
}

// Read returns the blob named d, verified, if it is at most max bytes. A
// blob whose bytes do not match d is removed and reported as a
// *CorruptError. A missing blob is an error satisfying errors.Is(err,
// fs.ErrNotExist).
func (s *Store) Read(d string, max int64) ([]byte, error) {
	f, _, p, err := s.openFile(d, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if got := Digest(b); got != d {
		os.Remove(p)
		return nil, &CorruptError{Path: p, Want: d, Got: got}
	}
	return b, nil
}

// MismatchError is content whose digest is not the one it was fetched as.
type MismatchError struct {
	Want, Got string
}

// Error gives both digests.
func (e *MismatchError) Error() string {
	return fmt.Sprintf("digest mismatch: expected %s, the content received hashes to %s", e.Want, e.Got)
}

// TooLargeError is content over the size limit it was read with.
type TooLargeError struct {
	Limit int64
}

// Error gives the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("larger than the %d-byte limit", e.Limit)
}

// Write stores what r yields as the blob named d, reading at most max
// bytes: more is a *TooLargeError, bytes hashing to something other than d
// a *MismatchError, and in either case nothing is stored. progress, if not
// nil, is told the bytes read so far as they arrive. Write returns the
// number of bytes stored.
func (s *Store) Write(d string, r io.Reader, max int64, progress func(int64)) (int64, error) {
	if err := CheckDigest(d); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(filepath.Join(s.dir, "tmp"), "blob-*")
	if err != nil {
		return 0, fmt.Errorf("plugin store: %w", err)
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name()) // a no-op once renamed
	}()
	h := sha256.New()
	w := io.MultiWriter(tmp, h)
	var n int64
	buf := make([]byte, 64<<10)
	for {
		m, rerr := r.Read(buf)
		if m > 0 {
			if n+int64(m) > max {
				return n, &TooLargeError{Limit: max}
			}
			if _, err := w.Write(buf[:m]); err != nil {
				return n, fmt.Errorf("plugin store: %w", err)
			}
			n += int64(m)
			if progress != nil {
				progress(n)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return n, rerr
		}
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != d {
		return n, &MismatchError{Want: d, Got: got}
	}
	if err := tmp.Sync(); err != nil {
		return n, fmt.Errorf("plugin store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return n, fmt.Errorf("plugin store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path(d)); err != nil {
		return n, fmt.Errorf("plugin store: %w", err)
	}
	return n, nil
}

// Put stores b under its own digest and returns that digest.
func (s *Store) Put(b []byte) (string, error) {
	d := Digest(b)
	if s.Has(d) {
		return d, nil
	}
	_, err := s.Write(d, bytes.NewReader(b), int64(len(b)), nil)
	return d, err
}

// ReadRecord reads the record of kind under key into v. It reports false,
// and no error, when there is none.
func (s *Store) ReadRecord(kind, key string, v any) (bool, error) {
	b, err := os.ReadFile(s.recordPath(kind, key))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var env struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(b, &env); err != nil || env.Key != key {
		return false, fmt.Errorf("plugin store: record %s is not valid: remove it", s.recordPath(kind, key))
	}
	return true, json.Unmarshal(env.Value, v)
}

// WriteRecord replaces the record of kind under key with v, atomically.
func (s *Store) WriteRecord(kind, key string, v any) error {
	val, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b, err := json.Marshal(struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}{key, val})
	if err != nil {
		return err
	}
	p := s.recordPath(kind, key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return WriteFileAtomic(p, b, 0o600, filepath.Join(s.dir, "tmp"))
}

func (s *Store) recordPath(kind, key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(s.dir, "records", kind, hex.EncodeToString(sum[:])+".json")
}

// WriteFileAtomic writes data to path through a temporary file in tmpDir
// (the same file system as path; "" for path's own folder) renamed over
// it, so readers see the old file or the new one, never a part.
func WriteFileAtomic(path string, data []byte, perm os.FileMode, tmpDir string) error {
	if tmpDir == "" {
		tmpDir = filepath.Dir(path)
	}
	tmp, err := os.CreateTemp(tmpDir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Blob is a stored blob opened as a stream, for content too large to hold
// twice (an image layer read while it is unpacked). It is verified as it
// is read: Verify reads what is left and reports a *CorruptError (and
// removes the file) if the bytes do not hash to the blob's name, so what
// was read from it may be used only once Verify returned nil.
type Blob struct {
	f    *os.File
	h    hash.Hash
	r    io.Reader
	d, p string
	size int64
}

// Open opens the blob named d, at most max bytes, as a verifying stream.
// A missing blob is an error satisfying errors.Is(err, fs.ErrNotExist).
func (s *Store) Open(d string, max int64) (*Blob, error) {
	f, size, p, err := s.openFile(d, max)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	return &Blob{f: f, h: h, r: io.TeeReader(io.LimitReader(f, size), h), d: d, p: p, size: size}, nil
}

// openFile opens the blob named d, once its name is a digest, it is a
// regular file and it is at most max bytes; p is its path.
func (s *Store) openFile(d string, max int64) (f *os.File, size int64, p string, err error) {
	if err := CheckDigest(d); err != nil {
		return nil, 0, "", err
	}
	p = s.Path(d)
	if f, err = os.Open(p); err != nil {
		return nil, 0, p, err
	}
	st, err := f.Stat()
	switch {
	case err != nil:
	case !st.Mode().IsRegular():
		err = fmt.Errorf("plugin store: %s is not a regular file", p)
	case st.Size() > max:
		err = fmt.Errorf("plugin store: %s is %d bytes, over the %d-byte limit", p, st.Size(), max)
	}
	if err != nil {
		f.Close()
		return nil, 0, p, err
	}
	return f, st.Size(), p, nil
}

// Read reads the blob's next bytes (unverified until Verify).
func (b *Blob) Read(p []byte) (int, error) { return b.r.Read(p) }

// Size is the blob's size in bytes.
func (b *Blob) Size() int64 { return b.size }

// Verify reads the rest of the blob and checks the whole hashes to its name.
func (b *Blob) Verify() error {
	if _, err := io.Copy(io.Discard, b.r); err != nil {
		return err
	}
	if got := "sha256:" + hex.EncodeToString(b.h.Sum(nil)); got != b.d {
		os.Remove(b.p)
		return &CorruptError{Path: b.p, Want: b.d, Got: got}
	}
	return nil
}

// Close closes the blob's file.
func (b *Blob) Close() error { return b.f.Close() }
