package lifecycle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/source"
)

// NewRuntime is the plugin runtime the limits ask for: their cache folder
// and memory budget.
func NewRuntime(l *Limits, logger *slog.Logger) (*plugin.Runtime, error) {
	budget, err := l.MemoryBudget()
	if err != nil {
		return nil, err
	}
	return plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: l.CacheDir, Logger: logger, MemoryBudget: budget})
}

// Open returns a catalog that serves nothing, for the commands that load
// plugins without serving them (validate, call, inspect). Close it.
func Open(l *Limits, logger *slog.Logger) (*Catalog, error) {
	rt, err := NewRuntime(l, logger)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Catalog{rt: rt, reg: registry.New(), logger: logger, deadline: 60 * time.Second}, nil
}

// LoadOne loads a single plugin file (or oci:// or https:// source, got
// by f) with its names unprefixed, granted l.Roots read-only and
// l.RWRoots read-write, into a catalog that serves nothing (call,
// inspect). Close the catalog.
func LoadOne(ctx context.Context, path string, l *Limits, logger *slog.Logger, f *Fetcher) (*Catalog, *plugin.Plugin, error) {
	base, err := l.Defaults(&config.Config{})
	if err != nil {
		return nil, nil, err
	}
	if base.Grants, err = RootGrants(l.Roots); err != nil {
		return nil, nil, err
	}
	for _, d := range l.RWRoots {
		gr, err := plugin.OpenGrant(d, false)
		if err != nil {
			return nil, nil, fmt.Errorf("--rw-root %s: %w", d, err)
		}
		base.Grants = AddGrant(base.Grants, gr)
	}
	var data []byte
	if source.IsRemote(path) {
		data, err = f.Wasm(path, nil)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, nil, err
	}
	base.Name, base.Source, base.Wasm = NameFromFile(path), path, data
	c, err := Open(l, logger)
	if err != nil {
		return nil, nil, err
	}
	p, err := c.rt.Load(ctx, base)
	if err == nil {
		_, err = c.reg.Add(ctx, p, registry.AddOptions{Unprefixed: true})
		if err != nil {
			p.Close(ctx)
		}
	}
	if err != nil {
		c.rt.Close(ctx)
		return nil, nil, err
	}
	return c, p, nil
}

// loadRanked loads specs one at a time, in serve's order, compiling each
// (serving compiles at the first call; validate makes sure it can): the
// ranks are serve's, so the collisions reported are the ones serve would
// report. It returns a problem per plugin that would not serve.
func (c *Catalog) loadRanked(ctx context.Context, specs []Spec, deadline time.Duration) []error {
	var problems []error
	for rank, s := range specs {
		p, err := c.rt.Load(ctx, s.Config)
		if err == nil {
			if err = p.Compile(ctx); err != nil {
				err = &plugin.LoadError{Plugin: s.Config.Name, Source: s.Config.Source, Err: fmt.Errorf("compile: %w", err)}
				p.Close(context.Background())
				p = nil
			}
		}
		if err == nil {
			if _, err = c.reg.AddRanked(ctx, p, c.addOptions(s, false), rank); err != nil {
				p.Close(context.Background())
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("plugin %q (%s): not loaded within the load deadline (%s, --load-timeout): %w", s.Config.Name, s.Config.Source, deadline, err)
			}
			problems = append(problems, err)
		}
	}
	for _, r := range c.reg.Settle() {
		problems = append(problems, fmt.Errorf("%s: %w", r.Plugin.Config().Source, r.Err))
		r.Plugin.Close(context.Background())
	}
	return problems
}

// ValidateOptions are validate's flags: serve's, for what it checks.
type ValidateOptions struct {
	// Args, Config, Limits, Remote, Ops, NoPrefix, Roots and LoadTimeout
	// are as for ServeOptions.
	Args        []string
	Config      *config.Config
	Limits      Limits
	Remote      RemoteOptions
	Ops         OpsOptions
	NoPrefix    bool
	Roots       []string
	LoadTimeout time.Duration
	// Checks are serve's start-up checks to run too.
	Checks ServeChecks
	// Confine applies serve's confinement first, then tries what a
	// compromised process would.
	Confine bool
	// ConfigPath is --config, for the approving command validate names.
	ConfigPath string
}

// Validate checks a config and the plugins it and the arguments name,
// the way serve would load them — read, pinned, preflighted, compiled,
// probed, their lists read and checked, collisions resolved — and what
// serve checks before serving (ServeChecks), and the [server.policy]
// policies against the schema generated for the plugins loaded, without
// serving. It prints
// one line per plugin served and returns 0, or names every problem on
// stderr and returns 1 (2 for a usage error).
func Validate(o ValidateOptions, stdout, stderr io.Writer) int {
	fail := func(err error) { fmt.Fprintln(stderr, "mcpwasm validate:", err) }
	cfg := o.Config
	base, err := o.Limits.Defaults(cfg)
	if err != nil {
		fail(err)
		return 2
	}
	o.Checks.AdminAddr, o.Checks.AuditLog = o.Ops.Admin, o.Ops.AuditLog
	served, warnings := o.Checks.run(context.Background(), cfg)
	for _, w := range warnings {
		fmt.Fprintln(stderr, "mcpwasm validate: warning:", w)
	}
	if base.Grants, err = RootGrants(append(o.Roots, cfg.Server.Roots...)); err != nil {
		fail(err)
		return 1
	}
	logger := slog.New(slog.DiscardHandler)
	fetch := NewFetcher(context.Background(), o.Remote, cfg, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	fetch.DryRun = true // validate writes no pin
	specs, problems := Collect(o.Args, cfg, base, o.NoPrefix, fetch)
	for _, p := range problems {
		fail(p)
	}
	c, err := Open(&o.Limits, logger) // creates the compile cache's folder, as serve does before confining
	if err != nil {
		fail(err)
		return 1
	}
	defer c.Close(time.Minute)
	var check *confine.Check
	workersBad := 0
	if o.Confine {
		// Isolated plugins' workers first: afterwards this process
		// cannot exec.
		workersBad = checkWorkers(specs, o.Limits.CacheDir, pluginFolder(o.Args, specs), stdout, stderr)
		if check, err = confineForCheck(o.Args, cfg, specs, o.Roots, o.Limits.CacheDir, o.Remote.StoreDir, o.Checks.HTTPAddr, o.Ops, stdout, stderr); err != nil {
			fail(err)
			return 1
		}
		defer check.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.LoadTimeout)
	defer cancel()
	for _, p := range served {
		fail(p)
	}
	bad := len(served) + len(problems) + workersBad
	for _, err := range c.loadRanked(ctx, specs, o.LoadTimeout) {
		fail(err)
		bad++
	}
	for _, p := range c.reg.Plugins() {
		fmt.Fprintln(stdout, summary(c.reg, p))
	}
	for _, w := range trustWarnings(c, specs, fetch, o.ConfigPath, o.Args) {
		fmt.Fprintln(stderr, "mcpwasm validate: warning:", w)
	}
	if n, against, err := checkPolicy(cfg, c.reg); err != nil {
		fail(err)
		bad++
	} else if n > 0 {
		fmt.Fprintf(stdout, "ok  %d policies match %s\n", n, against)
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "mcpwasm validate: %d problem(s); %d plugin(s) would serve\n", bad, len(c.reg.Plugins()))
	}
	if check != nil && !runCheck(check, stdout, stderr) {
		return 1
	}
	if bad > 0 {
		return 1
	}
	return 0
}

// summary is one plugin's line: ok, name, source, what it serves, its
// ABI version and the start of its sha256.
func summary(reg *registry.Registry, p *plugin.Plugin) string {
	e, _, _ := reg.Entry(p)
	sum := sha256.Sum256(p.Config().Wasm)
	return fmt.Sprintf("ok  %s  %s  %d tools, %d resources, %d resource templates, %d prompts; ABI v%d; sha256 %s",
		p.Name(), p.Config().Source, len(e.Tools), len(e.Resources), len(e.Templates), len(e.Prompts),
		p.ABIVersion, hex.EncodeToString(sum[:])[:16])
}
