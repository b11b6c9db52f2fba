package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
)

// cmdValidate checks a config and the plugins it and the arguments name,
// the way serve would load them — read, pinned, preflighted, compiled,
// probed, their lists read and checked, collisions resolved — and what
// serve checks before serving (serveChecks: key and token files, listen
// addresses, the audit log; an unreachable JWKS is a warning), without
// serving. It prints one line per plugin served and exits 0, or names
// every problem on stderr and exits 1 (2 for a usage error).
func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		lf        limitFlags
		rf        remoteFlags
		cfgPath   = fs.String("config", "", "TOML config file to check")
		noPrefix  = fs.Bool("no-prefix", false, "as serve: plugins given as arguments keep their declared names")
		loadLimit = fs.Duration("load-timeout", 60*time.Second, "give up on a plugin not loaded this long after start")
		roots     stringList
		sc        serveChecks
		of        opsFlags
		walls     = fs.Bool("confine", false, "apply serve's confinement (--confine=auto), load the plugins under it, then try what a compromised process would: read outside the rules, write into the plugin folder, exec, ptrace, connect; one line per attempt, exit 1 unless every one is refused")
	)
	fs.StringVar(&sc.httpAddr, "http", "", "as serve: check the HTTP listen address, authentication and limits")
	fs.StringVar(&sc.keyFile, "state-key-file", "", "as serve: check the requestState key file")
	fs.BoolVar(&sc.insecure, "insecure-no-auth", false, "as serve: allow a non-loopback --http without [server.auth]")
	of.register(fs)
	lf.register(fs)
	rf.register(fs)
	fs.Var(&roots, "root", "as serve: grant every plugin read-only access to DIR (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcpwasm validate [--config FILE] [flags] [PLUGIN.wasm | DIR]...")
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if *cfgPath == "" && len(pos) == 0 {
		fmt.Fprintln(stderr, "mcpwasm validate: nothing to check: give --config FILE, plugin files or folders")
		return 2
	}
	if *loadLimit <= 0 {
		fmt.Fprintf(stderr, "mcpwasm validate: --load-timeout %s: must be positive\n", *loadLimit)
		return 2
	}
	fail := func(err error) { fmt.Fprintln(stderr, "mcpwasm validate:", err) }
	cfg := &config.Config{}
	if *cfgPath != "" {
		if cfg, err = config.Load(*cfgPath); err != nil {
			fail(err)
			return 1
		}
	}
	base, err := lf.defaults(cfg)
	if err != nil {
		fail(err)
		return 2
	}
	sc.adminAddr, sc.auditLog = of.admin, of.auditLog
	served, warnings := sc.run(context.Background(), cfg)
	for _, w := range warnings {
		fmt.Fprintln(stderr, "mcpwasm validate: warning:", w)
	}
	if base.Grants, err = rootGrants(append(roots, cfg.Server.Roots...)); err != nil {
		fail(err)
		return 1
	}
	fetch := newFetcher(context.Background(), rf, cfg, newLogger(stderr, "warn"))
	fetch.dryRun = true // validate writes no pin
	specs, problems := collect(pos, cfg, base, *noPrefix, fetch)
	for _, p := range problems {
		fail(p)
	}
	logger := newLogger(io.Discard, "error")
	rt, err := newRuntime(&lf, logger) // creates the compile cache's folder, as serve does before confining
	if err != nil {
		fail(err)
		return 1
	}
	defer rt.Close(context.Background())
	var check *confine.Check
	if *walls {
		if check, err = confineForCheck(pos, cfg, specs, roots, lf, rf, sc.httpAddr, of, stdout, stderr); err != nil {
			fail(err)
			return 1
		}
		defer check.Close()
	}

	ctx, cancel := context.WithTimeout(context.Background(), *loadLimit)
	defer cancel()
	problems = append(served, problems...)
	for _, p := range served {
		fail(p)
	}
	bad := len(problems)
	reg := registry.New()
	defer reg.Close(context.Background())
	// One at a time, in serve's order: the ranks are the same, so the
	// collisions reported are the ones serve would report.
	for rank, s := range specs {
		p, err := rt.Load(ctx, s.cfg)
		if err == nil {
			if _, err = reg.AddRanked(ctx, p, registry.AddOptions{Unprefixed: s.unprefixed}, rank); err != nil {
				p.Close(context.Background())
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("plugin %q (%s): not loaded within the load deadline (%s, --load-timeout): %w", s.cfg.Name, s.cfg.Source, *loadLimit, err)
			}
			fail(err)
			bad++
		}
	}
	for _, r := range reg.Settle() {
		fail(fmt.Errorf("%s: %w", r.Plugin.Config().Source, r.Err))
		r.Plugin.Close(context.Background())
		bad++
	}
	for _, p := range reg.Plugins() {
		fmt.Fprintln(stdout, summary(reg, p))
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "mcpwasm validate: %d problem(s); %d plugin(s) would serve\n", bad, len(reg.Plugins()))
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
