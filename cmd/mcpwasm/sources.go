package main

import (
	"flag"
	"fmt"
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

// limitFlags are the per-plugin defaults every command accepts.
type limitFlags struct {
	timeout     time.Duration
	memory      string
	maxOutput   string
	concurrency int
	cacheDir    string
	budget      string
	roots       stringList // call: --root
	rwRoots     stringList // call: --rw-root
	fs          *flag.FlagSet
}

func (l *limitFlags) register(fs *flag.FlagSet) {
	l.fs = fs
	fs.DurationVar(&l.timeout, "timeout", 0, "per-call time limit (default 5s, or [defaults] timeout)")
	fs.StringVar(&l.memory, "memory", "", "per-plugin memory limit, e.g. 64MiB (default 64MiB)")
	fs.StringVar(&l.maxOutput, "max-output", "", "largest tool output accepted, e.g. 4MiB (default 4MiB)")
	fs.IntVar(&l.concurrency, "concurrency", 0, "calls of one plugin running at once (default 8)")
	fs.StringVar(&l.budget, "memory-budget", "4GiB", "growth of all guest memories together, across plugins and calls (0: unbounded)")
	def := plugin.DefaultCacheDir()
	if def == "" {
		def = "none: no user cache folder"
	}
	fs.StringVar(&l.cacheDir, "cache-dir", "", `compiled-code cache folder, private to this user ("off" to disable; default `+def+`)`)
}

// spec is one plugin to load and how to expose it.
type spec struct {
	cfg        plugin.Config
	unprefixed bool
}

// given reports whether the flag was set on the command line.
func (l *limitFlags) given(name string) bool {
	found := false
	if l.fs != nil {
		l.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	}
	return found
}

// defaults merges flags over the config file's [defaults]; flags win. Every
// flag given is checked against the ranges in host/config: out of range is
// an error, never a silent change.
func (l *limitFlags) defaults(c *config.Config) (plugin.Config, error) {
	d := plugin.Config{Timeout: c.Defaults.Timeout.Duration, MemoryLimit: c.Defaults.Memory.Bytes,
		MaxOutput: int(c.Defaults.MaxOutput.Bytes), Concurrency: c.Defaults.Concurrency}
	if l.given("timeout") {
		if err := config.CheckTimeout(l.timeout); err != nil {
			return d, fmt.Errorf("--timeout: %w", err)
		}
		d.Timeout = l.timeout
	}
	if l.given("memory") {
		n, err := config.ParseSize(l.memory)
		if err == nil {
			err = config.CheckMemory(n)
		}
		if err != nil {
			return d, fmt.Errorf("--memory: %w", err)
		}
		d.MemoryLimit = n
	}
	if l.given("max-output") {
		n, err := config.ParseSize(l.maxOutput)
		if err == nil {
			err = config.CheckMaxOutput(n)
		}
		if err != nil {
			return d, fmt.Errorf("--max-output: %w", err)
		}
		d.MaxOutput = int(n)
	}
	if l.given("concurrency") {
		if err := config.CheckConcurrency(l.concurrency); err != nil {
			return d, fmt.Errorf("--concurrency: %w", err)
		}
		d.Concurrency = l.concurrency
	}
	if _, err := l.memoryBudget(); err != nil {
		return d, err
	}
	return d, nil
}

// memoryBudget parses and checks --memory-budget.
func (l *limitFlags) memoryBudget() (uint64, error) {
	n, err := config.ParseSize(l.budget)
	if err == nil {
		err = config.CheckBudget(n)
	}
	if err != nil {
		return 0, fmt.Errorf("--memory-budget: %w", err)
	}
	return n, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// nameFromFile derives a plugin name from its file name: "text-kit.wasm" →
// "text-kit"; characters clients reject become "_".
func nameFromFile(path string) string {
	if source.IsRemote(path) {
		if r, err := source.Parse(path); err == nil {
			return r.Name() // "oci://ghcr.io/acme/textkit:1.0" → "textkit"
		}
	}
	n := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return unsafeName.ReplaceAllString(n, "_")
}

// collect resolves positional arguments (files or folders of .wasm files)
// and the config's [[plugin]] tables into plugin specs, in that order: the
// config's plugins in its order, then the arguments, a folder's files sorted
// by name. This order also decides which plugin wins a name or URI that two
// declare. With neither, it returns the built-in plugins.
//
// A source that cannot be read (a missing file or folder, a folder without
// .wasm files, a [[plugin.fs]] folder that does not exist) is returned in
// problems, naming it, and skipped: the others are served.
func collect(args []string, c *config.Config, base plugin.Config, noPrefix bool, f *fetcher) (specs []spec, problems []error) {
	return collectWith(args, c, base, noPrefix, plugin.OpenGrant, f)
}

// grantOpener opens a granted folder: plugin.OpenGrant, or a reload's
// cache of the folders opened so far (grantCache).
type grantOpener func(path string, readOnly bool) (plugin.Grant, error)

// collectWith is collect with the [[plugin.fs]] folders opened by open.
// f gets the oci:// and https:// plugins (remote.go).
func collectWith(args []string, c *config.Config, base plugin.Config, noPrefix bool, open grantOpener, f *fetcher) (specs []spec, problems []error) {
	for _, p := range c.Plugins {
		s, err := configSpec(c, p, base, open, f)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		specs = append(specs, s)
	}
	for _, a := range args {
		if source.IsRemote(a) {
			cfg, err := remoteArg(f, a, base)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			specs = append(specs, spec{cfg: cfg, unprefixed: noPrefix})
			continue
		}
		files, err := wasmFiles(a)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			cfg := base
			cfg.Name, cfg.Source, cfg.Wasm = nameFromFile(f), f, data
			specs = append(specs, spec{cfg: cfg, unprefixed: noPrefix})
		}
	}
	if len(c.Plugins) == 0 && len(args) == 0 {
		for _, b := range builtin.Plugins() {
			cfg := base
			cfg.Name, cfg.Source, cfg.Wasm = b.Name, "built-in "+b.File, b.Wasm
			specs = append(specs, spec{cfg: cfg})
		}
	}
	return specs, problems
}

// configSpec turns one [[plugin]] table into a spec.
func configSpec(c *config.Config, p config.Plugin, base plugin.Config, open grantOpener, f *fetcher) (spec, error) {
	grants := base.Grants
	for _, g := range p.FS {
		path := g.Path
		if !filepath.IsAbs(path) && c.File != "" {
			path = filepath.Join(filepath.Dir(c.File), path)
		}
		gr, err := open(path, g.Mode != "rw")
		if err != nil {
			return spec{}, fmt.Errorf("%s: [[plugin]] %q: [[plugin.fs]] %q: %w", c.File, p.Path, g.Path, err)
		}
		grants = addGrant(grants, gr)
	}
	path := p.Path
	var data []byte
	var err error
	if source.IsRemote(path) {
		if data, err = f.wasm(path, &p); err != nil {
			return spec{}, fmt.Errorf("%s: [[plugin]] %w", c.File, err)
		}
	} else {
		if !filepath.IsAbs(path) && c.File != "" {
			path = filepath.Join(filepath.Dir(c.File), path)
		}
		if data, err = os.ReadFile(path); err != nil {
			return spec{}, fmt.Errorf("%s: [[plugin]] %q: %w", c.File, p.Path, err)
		}
	}
	guest, err := p.Resolve(c.File)
	if err != nil {
		return spec{}, fmt.Errorf("%s: [[plugin]] %q: %w", c.File, p.Path, err)
	}
	cfg := base
	cfg.Name, cfg.Source, cfg.Wasm, cfg.SHA256, cfg.GuestConfig = p.Name, path, data, p.SHA256, guest
	if cfg.Network, err = netOptions(p); err != nil {
		return spec{}, fmt.Errorf("%s: [[plugin]] %q: %w", c.File, p.Path, err)
	}
	if cfg.Name == "" {
		cfg.Name = nameFromFile(path)
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
	return spec{cfg: cfg, unprefixed: p.Prefix != nil && !*p.Prefix}, nil
}

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
		return nil, fmt.Errorf("%s: no .wasm files in this folder", path)
	}
	return out, nil
}

// addGrant adds g to grants; a folder granted twice keeps the wider mode.
func addGrant(grants []plugin.Grant, g plugin.Grant) []plugin.Grant {
	out := append([]plugin.Grant(nil), grants...)
	for i := range out {
		if out[i].Path == g.Path {
			out[i].ReadOnly = out[i].ReadOnly && g.ReadOnly
			return out
		}
	}
	return append(out, g)
}

// rootGrants turns --root flags and [server] roots into read-only grants
// for every plugin. Each folder is opened here, once (see plugin.OpenGrant).
func rootGrants(dirs []string) ([]plugin.Grant, error) {
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
		grants = addGrant(grants, gr)
	}
	return grants, nil
}
