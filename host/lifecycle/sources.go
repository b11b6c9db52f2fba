package lifecycle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/source"
	"github.com/mcpwasm/mcpwasm/plugins/builtin"
)

// Limits are the per-plugin defaults and runtime settings a command's
// flags give; they override the config file's [defaults].
type Limits struct {
	// Timeout, Memory, MaxOutput and Concurrency are the flags' values;
	// each applies only when Given names it.
	Timeout     time.Duration
	Memory      string
	MaxOutput   string
	Concurrency int
	// Budget is --memory-budget, the growth of all guest memories
	// together ("0": unbounded).
	Budget string
	// CacheDir is the compiled-code cache folder ("" default, "off").
	CacheDir string
	// Roots and RWRoots are folders granted read-only and read-write to
	// the one plugin call and inspect load.
	Roots, RWRoots []string
	// Given names the flags set on the command line ("timeout",
	// "memory", "max-output", "concurrency").
	Given map[string]bool
}

// Spec is one plugin to load and how to expose it.
type Spec struct {
	// Config is the plugin's configuration, its module bytes included.
	Config plugin.Config
	// Unprefixed exposes the plugin's names as declared.
	Unprefixed bool
	// Trust is the plugin's trust settings, [defaults]' under its own
	// (config.Trust.Resolve).
	Trust config.Trust
	// Secrets are the values of its [plugin.config] keys read from the
	// environment or a file: never to reach a client, a log or a trace.
	Secrets []string
	// Isolated runs the plugin in a worker process of its own
	// (config.IsolationFor, isolation.go).
	Isolated bool
}

// Defaults merges the flags over the config file's [defaults]; flags win. Every
// flag given is checked against the ranges in host/config: out of range is
// an error, never a silent change.
func (l *Limits) Defaults(c *config.Config) (plugin.Config, error) {
	d := plugin.Config{Timeout: c.Defaults.Timeout.Duration, MemoryLimit: c.Defaults.Memory.Bytes,
		MaxOutput: int(c.Defaults.MaxOutput.Bytes), Concurrency: c.Defaults.Concurrency}
	if l.Given["timeout"] {
		if err := config.CheckTimeout(l.Timeout); err != nil {
			return d, fmt.Errorf("--timeout: %w", err)
		}
		d.Timeout = l.Timeout
	}
	if l.Given["memory"] {
		n, err := sizeFlag("--memory", l.Memory, config.CheckMemory)
		if err != nil {
			return d, err
		}
		d.MemoryLimit = n
	}
	if l.Given["max-output"] {
		n, err := sizeFlag("--max-output", l.MaxOutput, config.CheckMaxOutput)
		if err != nil {
			return d, err
		}
		d.MaxOutput = int(n)
	}
	if l.Given["concurrency"] {
		if err := config.CheckConcurrency(l.Concurrency); err != nil {
			return d, fmt.Errorf("--concurrency: %w", err)
		}
		d.Concurrency = l.Concurrency
	}
	if _, err := l.MemoryBudget(); err != nil {
		return d, err
	}
	return d, nil
}

// MemoryBudget parses and checks --memory-budget.
func (l *Limits) MemoryBudget() (uint64, error) {
	return sizeFlag("--memory-budget", l.Budget, config.CheckBudget)
}

// sizeFlag parses the size flag's text and checks it; its errors name the
// flag.
func sizeFlag(flag, text string, check func(uint64) error) (uint64, error) {
	n, err := config.ParseSize(text)
	if err == nil {
		err = check(n)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", flag, err)
	}
	return n, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// NameFromFile derives a plugin name from its file name: "text-kit.wasm" →
// "text-kit"; characters clients reject become "_".
func NameFromFile(path string) string {
	if source.IsRemote(path) {
		if r, err := source.Parse(path); err == nil {
			return r.Name() // "oci://ghcr.io/acme/textkit:1.0" → "textkit"
		}
	}
	n := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return unsafeName.ReplaceAllString(n, "_")
}

// Collect resolves positional arguments (files or folders of .wasm files)
// and the config's [[plugin]] tables into plugin specs, in that order: the
// config's plugins in its order, then the arguments, a folder's files sorted
// by name. This order also decides which plugin wins a name or URI that two
// declare. With neither, it returns the built-in plugins.
//
// A source that cannot be read (a missing file or folder, a folder without
// .wasm files, a [[plugin.fs]] folder that does not exist) is returned in
// problems, naming it, and skipped: the others are served.
func Collect(args []string, c *config.Config, base plugin.Config, noPrefix bool, f *Fetcher) (specs []Spec, problems []error) {
	return collectWith(args, c, base, noPrefix, plugin.OpenGrant, f)
}

// grantOpener opens a granted folder: plugin.OpenGrant, or a reload's
// cache of the folders opened so far (grantCache).
type grantOpener func(path string, readOnly bool) (plugin.Grant, error)

// collectWith is Collect with the [[plugin.fs]] folders opened by open.
// f gets the oci:// and https:// plugins (fetch.go).
func collectWith(args []string, c *config.Config, base plugin.Config, noPrefix bool, open grantOpener, f *Fetcher) (specs []Spec, problems []error) {
	for _, p := range c.Plugins {
		s, err := configSpec(c, p, base, open, f)
		if err != nil {
			problems = append(problems, &sourceError{Source: configPath(c, p.Path), Err: err})
			continue
		}
		specs = append(specs, s)
	}
	for _, a := range args {
		if source.IsRemote(a) {
			cfg, err := remoteArg(f, a, base)
			if err != nil {
				problems = append(problems, &sourceError{Source: a, Err: err})
				continue
			}
			specs = append(specs, Spec{Config: cfg, Unprefixed: noPrefix, Trust: c.Defaults.Trust.Resolve(config.Trust{}),
				Isolated: c.IsolationFor("", a) == config.IsolationProcess})
			continue
		}
		files, err := wasmFiles(a)
		if err != nil {
			problems = append(problems, &sourceError{Source: a, Err: err})
			continue
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				problems = append(problems, &sourceError{Source: f, Err: err})
				continue
			}
			cfg := base
			cfg.Name, cfg.Source, cfg.Wasm = NameFromFile(f), f, data
			specs = append(specs, Spec{Config: cfg, Unprefixed: noPrefix, Trust: c.Defaults.Trust.Resolve(config.Trust{}),
				Isolated: c.IsolationFor("", f) == config.IsolationProcess})
		}
	}
	if len(c.Plugins) == 0 && len(args) == 0 {
		for _, b := range builtin.Plugins() {
			cfg := base
			cfg.Name, cfg.Source, cfg.Wasm = b.Name, "built-in "+b.File, b.Wasm
			// The built-in plugins come with the binary, and change with
			// it: nothing to pin (hidden text is still refused).
			tr := c.Defaults.Trust.Resolve(config.Trust{})
			tr.Trust = "off"
			specs = append(specs, Spec{Config: cfg, Trust: tr, Isolated: c.IsolationFor("", "") == config.IsolationProcess})
		}
	}
	return specs, problems
}

// sourceError is a plugin source that could not be read: Source is the
// file, folder or remote source as a Spec would name it (a [[plugin]]
// path made relative to the config's folder), Err why.
type sourceError struct {
	Source string
	Err    error
}

// Error is Err's message: it already names the source.
func (e *sourceError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *sourceError) Unwrap() error { return e.Err }

// unreadable reports whether the plugin's own file or folder exists but
// could not be read (the process may not open it, a link loop, an I/O
// error): a failed reload, which leaves the version serving in service.
// A source that is gone (removed, a folder left without .wasm files), or
// that the config now refuses (a key or secret it cannot read, a
// signature policy, a bad table), is withdrawn: those fail closed.
func (e *sourceError) unreadable() bool {
	var pe *fs.PathError
	if !errors.As(e.Err, &pe) || errors.Is(e.Err, fs.ErrNotExist) {
		return false
	}
	return e.covers(pe.Path) || pe.Path == e.Source
}

// covers reports whether a plugin loaded from src came from this source:
// the same file, or a file in this folder.
func (e *sourceError) covers(src string) bool {
	return src == e.Source || filepath.Dir(src) == filepath.Clean(e.Source)
}

// configPath is where a [[plugin]] path points: a local path is relative
// to the config's folder; a remote source is itself.
func configPath(c *config.Config, path string) string {
	if source.IsRemote(path) || filepath.IsAbs(path) || c.File == "" {
		return path
	}
	return filepath.Join(filepath.Dir(c.File), path)
}

// where names a [[plugin]] table for a message: the config file and the
// line of its path.
func where(c *config.Config, p config.Plugin) string {
	if p.Line() > 0 {
		return fmt.Sprintf("%s: line %d", c.File, p.Line())
	}
	return c.File
}

// configSpec turns one [[plugin]] table into a spec.
func configSpec(c *config.Config, p config.Plugin, base plugin.Config, open grantOpener, f *Fetcher) (Spec, error) {
	grants := base.Grants
	for _, g := range p.FS {
		gr, err := open(g.Path, g.Mode != "rw")
		if err != nil {
			return Spec{}, fmt.Errorf("%s: [[plugin]] %q: [[plugin.fs]] %q: %w", where(c, p), p.Path, g.Path, err)
		}
		grants = AddGrant(grants, gr)
	}
	path := p.Path
	var data []byte
	var err error
	if source.IsRemote(path) {
		if data, err = f.Wasm(path, &p); err != nil {
			return Spec{}, fmt.Errorf("%s: [[plugin]] %w", where(c, p), err)
		}
	} else {
		if data, err = os.ReadFile(path); err != nil {
			return Spec{}, fmt.Errorf("%s: [[plugin]] %q: %w", where(c, p), p.Path, err)
		}
	}
	guest, err := p.Resolve()
	if err != nil {
		return Spec{}, fmt.Errorf("%s: [[plugin]] %q: %w", where(c, p), p.Path, err)
	}
	cfg := base
	cfg.Name, cfg.Source, cfg.Wasm, cfg.SHA256, cfg.GuestConfig = p.Name, path, data, p.SHA256, guest
	if cfg.Network, err = netOptions(p); err != nil {
		return Spec{}, fmt.Errorf("%s: [[plugin]] %q: %w", where(c, p), p.Path, err)
	}
	if cfg.Name == "" {
		cfg.Name = NameFromFile(path)
	}
	if p.Timeout.Duration > 0 {
		cfg.Timeout = p.Timeout.Duration
	}
	if p.Memory.Bytes > 0 {
		cfg.MemoryLimit = p.Memory.Bytes
	}
	if p.MaxOutput.Bytes > 0 {
		cfg.MaxOutput = int(p.MaxOutput.Bytes)
	}
	if p.Concurrency > 0 {
		cfg.Concurrency = p.Concurrency
	}
	cfg.Grants = grants
	cfg.TaskModes = p.Tasks
	var secret []string
	for k, v := range p.Config {
		if v.Secret() {
			secret = append(secret, guest[k])
		}
	}
	return Spec{Config: cfg, Unprefixed: p.Prefix != nil && !*p.Prefix, Trust: p.Trust.Resolve(c.Defaults.Trust), Secrets: secret,
		Isolated: c.IsolationFor(p.Isolation, p.Path) == config.IsolationProcess}, nil
}

// errNoWasm is a plugin folder without .wasm files.
var errNoWasm = errors.New("no .wasm files in this folder")

// wasmFiles expands a path: a file is itself, a folder is its *.wasm files.
func wasmFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".wasm") {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", path, errNoWasm)
	}
	return out, nil
}

// AddGrant adds g to grants; a folder granted twice keeps the wider mode.
func AddGrant(grants []plugin.Grant, g plugin.Grant) []plugin.Grant {
	out := append([]plugin.Grant(nil), grants...)
	for i := range out {
		if out[i].Path == g.Path {
			out[i].ReadOnly = out[i].ReadOnly && g.ReadOnly
			return out
		}
	}
	return append(out, g)
}

// RootGrants turns --root flags and [server] roots into read-only grants
// for every plugin. Each folder is opened here, once (see plugin.OpenGrant).
func RootGrants(dirs []string) ([]plugin.Grant, error) {
	return rootGrantsWith(dirs, plugin.OpenGrant)
}

// rootGrantsWith is rootGrants with the folders opened by open.
func rootGrantsWith(dirs []string, open grantOpener) ([]plugin.Grant, error) {
	var grants []plugin.Grant
	for _, d := range dirs {
		gr, err := open(d, true)
		if err != nil {
			return nil, fmt.Errorf("--root %s: %w", d, err)
		}
		grants = AddGrant(grants, gr)
	}
	return grants, nil
}
