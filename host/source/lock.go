package source

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/source/store"
)

// LockName is the lock file's name, beside the config file.
const LockName = "mcpwasm.lock"

// Lock holds the digests tags were pinned to: one "SOURCE DIGEST" line per
// tag, read when it is opened and rewritten whole (atomically) on every
// change. Its methods are safe for concurrent use.
type Lock struct {
	path   string
	mu     sync.Mutex
	pins   map[string]string
	dryRun bool
	// read is the file as last read, to read it again when another
	// process (pull --update while serve runs) has replaced it.
	read os.FileInfo
	// dry are the pins set in dry-run mode, kept over a new read.
	dry map[string]string
	// decls are the "decl …" lines: the declarations approved per plugin
	// (host/trust reads and writes them through Decls and SetDecls), kept
	// as written and written back after the pins.
	decls []string
	// dryDecls are the decl lines set in dry-run mode, by plugin field.
	dryDecls map[string][]string
}

// DryRun makes Set change the pins in memory only, never the file (for
// commands that must not write: validate, inspect).
func (l *Lock) DryRun() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dryRun = true
}

// LockFor is the lock file that goes with a config file: mcpwasm.lock in
// the same folder.
func LockFor(configFile string) string {
	return filepath.Join(filepath.Dir(configFile), LockName)
}

// OpenLock reads the lock file at path; a missing file is an empty lock,
// created on the first pin. A malformed line is an error naming the file
// and the line.
func OpenLock(path string) (*Lock, error) {
	st, _ := os.Stat(path)
	pins, decls, err := readPins(path)
	if err != nil {
		return nil, err
	}
	return &Lock{path: path, pins: pins, decls: decls, read: st, dry: map[string]string{}, dryDecls: map[string][]string{}}, nil
}

// refresh reads the file again if it was replaced or changed since it
// was last read. A file that cannot be read now keeps the pins read
// before (Set reports it). l.mu must be held.
func (l *Lock) refresh() {
	st, err := os.Stat(l.path)
	if err != nil || (l.read != nil && os.SameFile(st, l.read) && st.ModTime().Equal(l.read.ModTime()) && st.Size() == l.read.Size()) {
		return
	}
	pins, decls, err := readPins(l.path)
	if err != nil {
		return
	}
	for k, v := range l.dry {
		pins[k] = v
	}
	l.pins, l.decls, l.read = pins, decls, st
}

// readPins reads the pins in the lock file at path (none if it is
// missing), and its "decl" lines as they are.
func readPins(path string) (map[string]string, []string, error) {
	pins := map[string]string{}
	var decls []string
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return pins, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if f[0] == DeclWord {
			decls = append(decls, line)
			continue
		}
		if len(f) != 2 {
			return nil, nil, fmt.Errorf("%s:%d: want \"SOURCE DIGEST\", got %q", path, n, line)
		}
		ref, err := Parse(f[0])
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if ref.Kind != OCI || ref.Tag == "" || ref.Digest != "" {
			return nil, nil, fmt.Errorf("%s:%d: %s is not an oci:// source with a tag", path, n, f[0])
		}
		if err := store.CheckDigest(f[1]); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if prev, dup := pins[f[0]]; dup && prev != f[1] {
			return nil, nil, fmt.Errorf("%s:%d: %s is pinned twice, to %s and %s", path, n, f[0], prev, f[1])
		}
		pins[f[0]] = f[1]
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return pins, decls, nil
}

// Path is the lock file's path.
func (l *Lock) Path() string { return l.path }

// Get returns the digest source is pinned to, as the file says now: a
// pin another process moved (pull --update) is seen without a restart.
func (l *Lock) Get(source string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refresh()
	d, ok := l.pins[source]
	return d, ok
}

// Set pins source to digest and writes the file. The file is read again
// first and only this pin changed in it: another process (pull --update
// while serve runs) may have moved other pins since this Lock read it, and
// writing back what this one holds would move them back. The pins read
// become this Lock's.
func (l *Lock) Set(source, digest string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dryRun {
		l.pins[source], l.dry[source] = digest, digest
		return nil
	}
	pins, decls, err := readPins(l.path)
	if err != nil {
		return fmt.Errorf("the pin of %s is not recorded: %w", source, err)
	}
	if pins[source] == digest {
		l.pins, l.decls = pins, decls
		return nil
	}
	pins[source] = digest
	return l.replace(pins, decls)
}

// replace makes pins and decls the lock's and writes the file, keeping
// the lock as it was if the write fails. l.mu is held.
func (l *Lock) replace(pins map[string]string, decls []string) error {
	old, oldDecls := l.pins, l.decls
	l.pins, l.decls = pins, decls
	if err := l.write(); err != nil {
		l.pins, l.decls = old, oldDecls
		return fmt.Errorf("%s: %w", l.path, err)
	}
	l.read, _ = os.Stat(l.path)
	return nil
}

// Pins returns a copy of every pin.
func (l *Lock) Pins() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refresh()
	out := make(map[string]string, len(l.pins))
	for k, v := range l.pins {
		out[k] = v
	}
	return out
}

func (l *Lock) write() error {
	var b strings.Builder
	b.WriteString("# mcpwasm.lock: the digest each tag was pinned to when first fetched.\n")
	b.WriteString("# Written by mcpwasm; `mcpwasm pull --update` moves the pins. Keep it with the config.\n")
	keys := make([]string, 0, len(l.pins))
	for k := range l.pins {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %s\n", k, l.pins[k])
	}
	if len(l.decls) > 0 {
		b.WriteString("# Declarations approved (host/trust): decl PLUGIN KIND NAME SHA256 FIELD=SUM,…; `mcpwasm trust` writes them.\n")
		for _, d := range l.decls {
			b.WriteString(d + "\n")
		}
	}
	err := store.WriteFileAtomic(l.path, []byte(b.String()), 0o644, "")
	if errors.Is(err, fs.ErrPermission) {
		// A confined serve may write the lock file but not create files
		// beside it (host/confine: the config's folder is read-only):
		// rewrite it in place. A reader meeting it half-written fails to
		// parse it and keeps what it read before (refresh).
		err = writeInPlace(l.path, []byte(b.String()))
	}
	return err
}

func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Create writes the lock file if it does not exist yet, so that a process
// confined later may still record in it (Landlock lets it write the file,
// not create one beside it).
func (l *Lock) Create() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dryRun {
		return nil
	}
	if _, err := os.Stat(l.path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := l.write(); err != nil {
		return fmt.Errorf("%s: %w", l.path, err)
	}
	l.read, _ = os.Stat(l.path)
	return nil
}

// DeclWord starts the lock file's declaration lines.
const DeclWord = "decl"

// Decls returns the lock file's "decl" lines, as the file says now (a
// `mcpwasm trust` run by another process is seen without a restart).
func (l *Lock) Decls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refresh()
	out := make([]string, 0, len(l.decls))
	for _, d := range l.decls {
		if f := strings.Fields(d); len(f) > 1 {
			if _, ok := l.dryDecls[f[1]]; ok {
				continue
			}
		}
		out = append(out, d)
	}
	for _, ds := range l.dryDecls {
		out = append(out, ds...)
	}
	return out
}

// SetDecls replaces the "decl" lines of one plugin (the lines whose second
// field is plugin) with lines, and writes the file: read again first, as
// Set does, so pins and other plugins' lines moved meanwhile are kept.
// In dry-run mode the lines change in memory only.
func (l *Lock) SetDecls(plugin string, lines []string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dryRun {
		l.dryDecls[plugin] = append([]string(nil), lines...)
		return nil
	}
	pins, decls, err := readPins(l.path)
	if err != nil {
		return fmt.Errorf("the declarations of %s are not recorded: %w", plugin, err)
	}
	kept := decls[:0]
	for _, d := range decls {
		if f := strings.Fields(d); len(f) > 1 && f[1] == plugin {
			continue
		}
		kept = append(kept, d)
	}
	kept = append(kept, lines...)
	sort.Strings(kept)
	return l.replace(pins, kept)
}
