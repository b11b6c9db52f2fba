package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/traceparent"
	"github.com/mcpwasm/mcpwasm/host/tracing"
)

type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func cmdServe(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		lf        limitFlags
		of        opsFlags
		rf        remoteFlags
		cfgPath   = fs.String("config", "", "TOML config file")
		httpAddr  = fs.String("http", "", "serve Streamable HTTP on ADDR (host defaults to 127.0.0.1) at /mcp, instead of stdio")
		stateless = fs.Bool("stateless", false, "stateless HTTP: serves 2026-07-28 clients; no server-to-client requests")
		logLevel  = fs.String("log-level", "info", "stderr log level: debug, info, warn, error")
		gcPercent = fs.Int("gc-percent", 400, "Go GC target percentage (GOGC, if set, wins); guest memories live off the Go heap, so the heap stays small")
		noPrefix  = fs.Bool("no-prefix", false, "expose the tools and prompts of plugins given as arguments under their declared names, without the <plugin>_ prefix")
		loadLimit = fs.Duration("load-timeout", 60*time.Second, "plugins not ready this long after start are reported as load failures and not served")
		roots     stringList
		hosts     stringList
		maxSess   = fs.Int("max-sessions", 0, "HTTP: most live sessions; a new one over it gets 503 (default 1000)")
		sessIdle  = fs.Duration("session-timeout", 0, "HTTP: close a session idle this long (default 30m)")
		watch     = fs.Bool("watch", true, "reload plugins when their files, their folders or the config file change (SIGHUP reloads either way)")
		keyFile   = fs.String("state-key-file", "", "HTTP: sign multi round-trip requestState with the key in FILE, shared by all replicas (else $MCPWASM_STATE_KEY, else a random key)")
		listTTL   = fs.Duration("list-ttl", 0, "ttlMs of tools/prompts/resources list results, the caching hint of protocol 2026-07-28 (0: stale at once; at most 24h)")
		insecure  = fs.Bool("insecure-no-auth", false, "HTTP: allow serving a non-loopback address without [server.auth] (e.g. behind an authenticating proxy)")
		taskStore = fs.String("task-store", "", "where tasks are kept: memory (default; one process) or redis://HOST:PORT/DB, shared by replicas ([server.tasks] store)")
	)
	lf.register(fs)
	of.register(fs)
	rf.register(fs)
	fs.Var(&hosts, "allowed-host", "HTTP: accept this Host header (name or name:port; repeatable); needed beyond loopback against DNS rebinding")
	fs.Var(&roots, "root", "grant every plugin read-only access to DIR (repeatable); a client's roots narrow it further")
	confineMode := confineFlag(fs)
	benchNative := fs.Bool("bench-native-echo", false, "bench only: also serve native_echo, a native Go echo tool in this server (see mcpwasm-bench)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcpwasm serve [flags] [PLUGIN.wasm | DIR]...")
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	mode, err := confine.ParseMode(*confineMode)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}
	logger := newLogger(stderr, *logLevel)
	if err := startDebug(logger); err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(*gcPercent)
	}
	cfg := &config.Config{}
	if *cfgPath != "" {
		c, err := config.Load(*cfgPath)
		if err != nil {
			fmt.Fprintln(stderr, "mcpwasm:", err)
			return 2
		}
		cfg = c
	}
	if *httpAddr == "" {
		*httpAddr = cfg.Server.HTTP
	}
	op, err := newOps(of, cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}
	defer op.close()
	if err := op.startTracing(cfg, logger); err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}
	*stateless = *stateless || cfg.Server.Stateless
	if lf.cacheDir == "" {
		lf.cacheDir = cfg.Server.CacheDir
	}
	base, err := lf.defaults(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}
	grants := &grantCache{} // a reload reuses the folders opened here
	if base.Grants, err = rootGrantsWith(append(roots, cfg.Server.Roots...), grants.open); err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}
	if *loadLimit <= 0 {
		fmt.Fprintf(stderr, "mcpwasm: --load-timeout %s: must be positive\n", *loadLimit)
		return 2
	}
	fetch := newFetcher(context.Background(), rf, cfg, logger)
	specs, problems := collectWith(pos, cfg, base, *noPrefix, grants.open, fetch)
	for _, err := range problems {
		logger.Error("plugin not loaded", "err", err)
	}
	if len(specs) == 0 && len(problems) > 0 {
		fmt.Fprintln(stderr, "mcpwasm: no plugin to serve")
		return 2
	}

	var stdioOut *os.File
	if *httpAddr == "" {
		stdioOut = privateStdout(logger) // before anything loads: nothing else may write to the stream
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rt, err := newRuntime(&lf, logger)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 1
	}
	key, err := stateKey(*keyFile, cfg.Server.StateKeyFile, cfg.File, logger)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}
	taskOpts, err := taskOptions(ctx, cfg.Server.Tasks, *taskStore, logger)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}
	reg := registry.New()
	name := cfg.Server.Name
	features := scanFeatures(specs, logger)
	srv := server.New(reg, server.Options{Name: name, Version: version, Logger: logger, StateKey: key,
		Features: features, Audit: op.audit, ListTTL: *listTTL, Tasks: taskOpts})
	op.start(srv, rt)
	if *benchNative {
		srv.AddNativeEcho()
	}
	var access server.AccessOptions
	if *httpAddr != "" {
		var policy bearer.Policy
		if access, policy, err = accessOptions(ctx, *httpAddr, cfg, *insecure, logger); err != nil {
			fmt.Fprintln(stderr, "mcpwasm:", err)
			return 2
		}
		srv.RequireScopes(policy)
	} else if cfg.Server.Auth.Enabled() {
		logger.Warn("[server.auth] applies to HTTP only; stdio is not authenticated")
	}

	// The second wall goes up before any plugin code runs (confine.go).
	walls := confineInputs{cfg: cfg, args: pos, specs: specs, roots: roots, cacheDir: lf.cacheDir,
		storeDir: rf.storeDir, audit: op.auditPath, traces: op.traces.Endpoint(), listen: []string{*httpAddr, op.admin}, tasks: taskStoreAddr(cfg, *taskStore)}
	if _, err := applyConfinement(mode, confinePolicy(walls), logger); err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}

	// Plugins load in the background: the handshake is answered at once;
	// a request for a plugin's tool waits for that plugin, a list for all.
	ld := &loader{rt: rt, reg: reg, srv: srv, logger: logger, deadline: *loadLimit, ops: op}
	loadCtx, cancelLoad := context.WithCancel(ctx)
	defer cancelLoad()
	// Then the reloader follows the files and SIGHUP (watch.go, reload.go).
	rl := &reloader{ld: ld, args: pos, cfgPath: *cfgPath, cfg: cfg, lf: &lf, roots: roots,
		noPrefix: *noPrefix, features: features, grants: grants, fetch: fetch, walls: walls.ifOn(mode)}
	var w *watcher
	rl.listen()
	if *watch {
		w = rl.startWatch()
	}
	ld.running.Add(1)
	go func() {
		defer ld.running.Done()
		ld.loadAll(loadCtx, specs)
		srv.Ready()
		rl.run(loadCtx, specs, w)
	}()

	// A signal stops new work; in-flight calls may finish within their time
	// limit before the transport closes.
	drainFor := plugin.DefaultTimeout
	for _, s := range specs {
		drainFor = max(drainFor, s.cfg.Timeout)
	}
	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	go func() {
		<-ctx.Done()
		logger.Info("shutting down: waiting for in-flight calls")
		if *httpAddr != "" {
			// The listener closes first and every request already
			// received is answered (HTTPOptions.ShutdownTimeout): behind a
			// load balancer, refusing them would lose answers.
			srv.Stopping()
			cancelRun()
			return
		}
		drainCtx, cancel := context.WithTimeout(context.Background(), drainFor+time.Second)
		srv.Drain(drainCtx)
		cancel()
		// A handler returns before go-sdk writes its response; give the
		// last responses a moment to reach the transport.
		time.Sleep(200 * time.Millisecond)
		cancelRun()
	}()
	if err = op.serveAdmin(runCtx, srv, logger); err != nil {
		// reported below, after the loads stop
	} else if *httpAddr != "" {
		o := httpOptions(cfg, *stateless, hosts, *maxSess, *sessIdle)
		o.Access = access
		o.ShutdownTimeout = drainFor + time.Second
		o.Routes = op.routes(srv)
		err = serveHTTP(runCtx, srv, *httpAddr, o)
	} else {
		logger.Info("serving MCP over stdio", "plugins", len(specs))
		err = srv.ServeStdio(runCtx, server.StdioOptions{Out: stdioOut, DrainTimeout: drainFor + time.Second})
	}
	srv.CloseTasks() // the tasks this process runs end failed, before their plugins close
	// Closing the runtime under a compile crashes wazero: stop the loads
	// and let those compiling finish first. Should one take too long, the
	// process exits without closing (the cache writes its files atomically).
	cancelLoad()
	if ld.wait(10 * time.Second) {
		reg.Close(context.Background())
		rt.Close(context.Background())
	} else {
		logger.Warn("exiting while plugins still compile")
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 1
	}
	return 0
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(traceparent.LogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})))
}

// loader loads plugins in the background and knows when every load it
// started has ended, so shutdown never closes the runtime under a compile.
type loader struct {
	rt       *plugin.Runtime
	reg      *registry.Registry
	srv      *server.Server
	logger   *slog.Logger
	deadline time.Duration
	ops      *ops           // told of load failures
	running  sync.WaitGroup // every load goroutine, including those past the deadline
}

// wait waits up to d for every load to end; false if some still run.
func (l *loader) wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { l.running.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// loadAll compiles plugins in parallel and publishes each one as soon as
// it is ready. A plugin that fails, or is not ready within the load
// deadline, is reported and skipped; the rest serve. Plugins declaring the
// same name or URI are resolved in the order of specs (the config's order,
// then file names), whichever finishes first. It returns when every plugin
// is published or given up on; loads past the deadline end on their own
// (see wait) and are then closed unpublished.
func (l *loader) loadAll(ctx context.Context, specs []spec) {
	dctx, cancel := context.WithTimeout(ctx, l.deadline)
	defer cancel()
	var settled sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	l.srv.Loading(pendingOf(specs)...)
	for rank, s := range specs {
		// mu orders the outcome of a load against giving up on it, so a
		// plugin is either published or reported late, never both.
		var mu sync.Mutex
		finished, gaveUp := false, false
		done := make(chan struct{})
		settled.Add(1)
		l.running.Add(1)
		go func() {
			defer l.running.Done()
			defer close(done)
			defer l.srv.Loaded(rank)
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-dctx.Done():
				return
			}
			start := time.Now()
			dctx, span := tracing.Start(dctx, "plugin.load "+s.cfg.Name, tracing.KeyPlugin, s.cfg.Name)
			var err error
			defer func() { span.End(err) }()
			p, err := l.rt.Load(dctx, s.cfg)
			mu.Lock()
			defer mu.Unlock()
			finished = true
			switch {
			case gaveUp:
				if p != nil {
					p.Close(context.Background())
				}
				return
			case err != nil:
				l.failed(ctx, dctx, s, err)
				return
			}
			ch, err := l.reg.AddRanked(dctx, p, registry.AddOptions{Unprefixed: s.unprefixed}, rank)
			if err != nil {
				l.failed(ctx, dctx, s, err)
				p.Close(context.Background())
				return
			}
			for _, r := range l.srv.Publish(ch) {
				l.logger.Error("plugin not loaded", "err", r.Err)
				l.lost(r.Plugin.Name())
				r.Plugin.Close(context.Background())
			}
			l.logger.Debug("plugin compiled", "plugin", p.Name(), "source", s.cfg.Source,
				"took", time.Since(start).Round(time.Millisecond))
		}()
		go func() {
			defer settled.Done()
			select {
			case <-done:
			case <-dctx.Done():
				mu.Lock()
				defer mu.Unlock()
				if finished {
					return
				}
				gaveUp = true
				l.srv.Loaded(rank)
				l.failed(ctx, dctx, s, nil)
			}
		}()
	}
	settled.Wait()
	for _, r := range l.reg.Settle() {
		l.logger.Error("plugin not loaded", "err", r.Err)
		l.lost(r.Plugin.Name())
		r.Plugin.Close(context.Background())
	}
	for _, p := range l.reg.Plugins() {
		from := "guest"
		if p.DeclarationsCached() {
			from = "cache"
		}
		l.logger.Info("plugin loaded", "plugin", p.Name(), "source", p.Config().Source, "declarations", from)
		// Now that every plugin is listed, those listed by running them
		// get their machine code (the others compile at their first call).
		p.CompileIfCold()
	}
}

// failed reports a plugin that did not load: err, or the load deadline
// when dctx expired first. Nothing is reported at shutdown (ctx ended).
func (l *loader) failed(ctx, dctx context.Context, s spec, err error) {
	switch {
	case ctx.Err() != nil:
	case dctx.Err() != nil:
		l.logger.Error("plugin not loaded", "plugin", s.cfg.Name, "source", s.cfg.Source,
			"err", fmt.Sprintf("not ready within the load deadline (%s, --load-timeout)", l.deadline))
		l.lost(s.cfg.Name)
	default:
		l.logger.Error("plugin not loaded", "source", s.cfg.Source, "err", err)
		l.lost(s.cfg.Name)
	}
}

// pendingOf describes each spec, ranked by its place, from its exports (a
// fast parse): what it could declare once loaded. A module that does not
// parse could declare anything (it fails to load soon anyway).
func pendingOf(specs []spec) []server.Pending {
	out := make([]server.Pending, len(specs))
	for rank, s := range specs {
		p := server.Pending{Rank: rank, Name: s.cfg.Name, Unprefixed: s.unprefixed}
		names, err := plugin.ExportNames(s.cfg.Wasm)
		if err != nil {
			p.Tools, p.Resources, p.Prompts = true, true, true
		}
		for _, name := range names {
			switch name {
			case abi.ExportListTools, abi.ExportDescribe:
				p.Tools = true
			case abi.ExportListResources, abi.ExportListResourceTemplates:
				p.Resources = true
			case abi.ExportListPrompts:
				p.Prompts = true
			}
		}
		out[rank] = p
	}
	return out
}

func serveHTTP(ctx context.Context, srv *server.Server, addr string, o server.HTTPOptions) error {
	ln, err := server.ListenHTTP(addr)
	if err != nil {
		return err
	}
	return srv.ServeHTTPOn(ctx, ln, o)
}

// httpOptions merges the HTTP flags over the [server] table; zero values
// take the server package's defaults.
func httpOptions(cfg *config.Config, stateless bool, hosts []string, maxSessions int, sessionTimeout time.Duration) server.HTTPOptions {
	c := cfg.Server
	o := server.HTTPOptions{Stateless: stateless, AllowedHosts: append(hosts, c.AllowedHosts...),
		MaxSessions: c.MaxSessions, SessionTimeout: c.SessionTimeout.Duration, MaxConns: c.MaxConnections,
		MaxBodyBytes: int64(c.MaxBody.Bytes), MaxBodyBytesInFlight: int64(c.MaxBodyInFlight.Bytes)}
	if maxSessions > 0 {
		o.MaxSessions = maxSessions
	}
	if sessionTimeout > 0 {
		o.SessionTimeout = sessionTimeout
	}
	return o
}

// scanFeatures reads each plugin's exports — a fast parse, no compilation —
// to know which capabilities to advertise before the plugins are compiled.
func scanFeatures(specs []spec, logger *slog.Logger) server.Features {
	var f server.Features
	for _, s := range specs {
		names, err := plugin.ExportNames(s.cfg.Wasm)
		if err != nil {
			continue // Load reports it
		}
		for _, name := range names {
			switch name {
			case abi.ExportListTools, abi.ExportDescribe:
				f.Tools = true
			case abi.ExportListResources, abi.ExportListResourceTemplates:
				f.Resources = true
			case abi.ExportListPrompts:
				f.Prompts = true
			case abi.ExportComplete:
				f.Completions = true
			}
		}
	}
	return f
}
