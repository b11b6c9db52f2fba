// Package lifecycle runs mcpwasm's plugins from start to shutdown: it
// collects what to load from a config file and the command line (local
// files and folders, oci:// and https:// sources), loads it into the
// catalog of loaded plugins (catalog.go: the one owner of what is loaded
// and published), confines the process, serves, reloads as files change,
// and closes everything in order at the end. The commands serve, validate,
// call and inspect all wire the runtime through it; package main keeps the
// flags.
//
// Like every package under host/, it is not a stable API.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/secrets"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
)

// ServeOptions are what serve's flags and config file say.
type ServeOptions struct {
	// Args are the plugin files, folders and remote sources given.
	Args []string
	// ConfigPath is --config, or ""; Config is the file it names, loaded
	// (an empty Config without one).
	ConfigPath string
	Config     *config.Config
	// Limits, Remote and Ops are the flags shared with other commands.
	Limits Limits
	Remote RemoteOptions
	Ops    OpsOptions
	// HTTP is the address to serve Streamable HTTP on; "" serves stdio on
	// StdioOut.
	HTTP     string
	StdioOut *os.File
	// Stateless, AllowedHosts, MaxSessions, SessionTimeout and
	// InsecureNoAuth configure HTTP (flags over [server]).
	Stateless      bool
	AllowedHosts   []string
	MaxSessions    int
	SessionTimeout time.Duration
	InsecureNoAuth bool
	// NoPrefix exposes the names of plugins given as arguments unprefixed.
	NoPrefix bool
	// LoadTimeout bounds each plugin's load.
	LoadTimeout time.Duration
	// Roots are folders granted read-only to every plugin (--root).
	Roots []string
	// Watch reloads plugins when their files change (SIGHUP reloads
	// either way).
	Watch bool
	// StateKeyFile is --state-key-file.
	StateKeyFile string
	// ListTTL is the ttlMs of list results.
	ListTTL time.Duration
	// TaskStore is --task-store.
	TaskStore string
	// Confine is the confinement mode.
	Confine confine.Mode
	// Trust, if set, replaces every plugin's trust setting (--trust; "off"
	// for a plugin author's development run).
	Trust string
	// BenchNativeEcho also serves native_echo (mcpwasm-bench).
	BenchNativeEcho bool
	// Version is the server's version, told to clients and traces.
	Version string
	// Logger receives the log; Stderr is where the audit log's "-" goes.
	Logger *slog.Logger
	Stderr io.Writer
}

// UsageError is a problem with the flags or the config found before
// serving: the command exits 2 on it.
type UsageError struct{ Err error }

// Error says what was wrong.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *UsageError) Unwrap() error { return e.Err }

// IsUsage reports whether err is a UsageError.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// Serve serves until ctx ends (a signal), then drains and closes in
// order. Plugins load in the background: the handshake is answered at
// once; a request for a plugin's tool waits for that plugin, a list for
// all.
func Serve(ctx context.Context, o ServeOptions) error {
	usage := func(err error) error { return &UsageError{err} }
	// No known secret reaches the log (host/secrets): the secrets are
	// set once read, below.
	known := &secrets.Known{}
	cfg, logger := o.Config, redactingLogger(o.Logger, known)
	op, err := newOps(o.Ops, cfg, o.Stderr)
	if err != nil {
		return usage(err)
	}
	defer op.close()
	if err := op.startTracing(cfg, o.Version, logger, func(s string) string { s, _ = known.Redact(s); return s }); err != nil {
		return usage(err)
	}
	base, err := o.Limits.Defaults(cfg)
	if err != nil {
		return usage(err)
	}
	grants := &grantCache{} // a reload reuses the folders opened here
	if base.Grants, err = rootGrantsWith(append(o.Roots, cfg.Server.Roots...), grants.open); err != nil {
		return usage(err)
	}
	if o.LoadTimeout <= 0 {
		return usage(fmt.Errorf("--load-timeout %s: must be positive", o.LoadTimeout))
	}
	fetch := NewFetcher(context.Background(), o.Remote, cfg, logger)
	specs, problems := collectWith(o.Args, cfg, base, o.NoPrefix, grants.open, fetch)
	for _, err := range problems {
		logger.Error("plugin not loaded", "err", err)
	}
	if len(specs) == 0 && len(problems) > 0 {
		return usage(errors.New("no plugin to serve"))
	}
	rt, err := NewRuntime(&o.Limits, logger)
	if err != nil {
		return err
	}
	key, err := stateKey(o.StateKeyFile, cfg.Server.StateKeyFile, logger)
	if err != nil {
		return usage(err)
	}
	taskOpts, err := taskOptions(ctx, cfg.Server.Tasks, o.TaskStore, logger)
	if err != nil {
		return usage(err)
	}
	pol, err := LoadPolicy(cfg)
	if err != nil {
		return usage(err)
	}
	features := Features(specs)
	if !trustFlagValid(o.Trust) {
		return usage(fmt.Errorf("--trust %q: want tofu, pin or off", o.Trust))
	}
	vet, lockFile := newVetter(o.Trust, o.ConfigPath, o.Args, fetch, op.audit, logger)
	op.audit.Redact(func(s string) string { s, _ = known.Redact(s); return s })
	cat := NewCatalog(rt, CatalogOptions{LoadTimeout: o.LoadTimeout, Lost: op.lost, Trust: vet,
		Known: known, ServerSecrets: serverSecrets(cfg, key, taskStoreAddr(cfg, o.TaskStore)), Server: server.Options{
			Name: cfg.Server.Name, Version: o.Version, Logger: logger, StateKey: key, Features: features,
			Audit: op.audit, PolicyFacts: signatureFacts(fetch), ListTTL: o.ListTTL, Tasks: taskOpts}})
	srv := cat.Server()
	srv.SetPolicy(pol)
	if pol != nil {
		logger.Info("policies in force", "policies", pol.Len(), "files", strings.Join(pol.Files(), ", "))
	}
	cat.setSecrets(specs)
	op.start(srv, rt)
	if o.BenchNativeEcho {
		srv.AddNativeEcho()
	}
	var access httpserve.AccessOptions
	if o.HTTP != "" {
		var policy bearer.Policy
		if access, policy, err = accessOptions(ctx, o.HTTP, cfg, o.InsecureNoAuth, logger); err != nil {
			return usage(err)
		}
		srv.RequireScopes(policy)
	} else if cfg.Server.Auth.Enabled() {
		logger.Warn("[server.auth] applies to HTTP only; stdio is not authenticated")
	}

	// The second wall goes up before any plugin code runs (confine.go).
	walls := confineInputs{cfg: cfg, args: o.Args, specs: specs, roots: o.Roots, cacheDir: o.Limits.CacheDir,
		storeDir: o.Remote.StoreDir, audit: op.auditPath, traces: op.traces.Endpoint(), listen: []string{o.HTTP, op.admin},
		tasks: taskStoreAddr(cfg, o.TaskStore)}
	policy := confinePolicy(walls)
	iso, err := startIsolation(o.Confine, policy, o.Limits.CacheDir, specs, logger)
	if err != nil {
		return usage(err)
	}
	defer iso.Close()
	cat.SetIsolation(iso)
	if _, err := applyConfinement(o.Confine, policy, logger); err != nil {
		return usage(err)
	}
	if op.file != nil && o.Confine != confine.Off {
		if _, shared := auditFolder(op.auditPath, policy.ReadOnly); shared != "" {
			logger.Warn("audit log: its folder holds a path the server reads, so under confinement the file cannot be created again after rotation (SIGHUP keeps the open file); give the audit log a folder of its own",
				"file", op.auditPath, "reads", shared)
		}
	}

	loadCtx, cancelLoad := context.WithCancel(ctx)
	defer cancelLoad()
	// Then the reloader follows the files and SIGHUP (watch.go, reload.go).
	rl := &reloader{c: cat, args: o.Args, cfgPath: o.ConfigPath, cfg: cfg, lf: &o.Limits, roots: o.Roots,
		noPrefix: o.NoPrefix, features: features, grants: grants, fetch: fetch, walls: walls.ifOn(o.Confine),
		onHUP: func() { op.reopen(logger) }, setPolicy: srv.SetPolicy, lockFile: lockFile}
	var w *watcher
	rl.listen()
	if o.Watch {
		w = rl.startWatch()
	}
	cat.running.Add(1)
	go func() {
		defer cat.running.Done()
		cat.Load(loadCtx, specs)
		srv.Ready()
		rl.run(loadCtx, specs, w)
	}()

	// A signal stops new work; in-flight calls may finish within their time
	// limit before the transport closes.
	drainFor := plugin.DefaultTimeout
	for _, s := range specs {
		drainFor = max(drainFor, s.Config.Timeout)
	}
	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	go func() {
		<-ctx.Done()
		logger.Info("shutting down: waiting for in-flight calls")
		if o.HTTP != "" {
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
	} else if o.HTTP != "" {
		h := httpOptions(cfg, o.Stateless, o.AllowedHosts, o.MaxSessions, o.SessionTimeout)
		h.Access = access
		h.ShutdownTimeout = drainFor + time.Second
		h.Routes = op.routes(srv)
		err = serveHTTP(runCtx, srv, o.HTTP, h)
	} else {
		logger.Info("serving MCP over stdio", "plugins", len(specs))
		err = srv.ServeStdio(runCtx, server.StdioOptions{Out: o.StdioOut, DrainTimeout: drainFor + time.Second})
	}
	srv.CloseTasks() // the tasks this process runs end failed, before their plugins close
	// Closing the runtime under a compile crashes wazero: stop the loads
	// and let those compiling finish first. Should one take too long, the
	// process exits without closing (the cache writes its files atomically).
	cancelLoad()
	if !cat.Close(10 * time.Second) {
		logger.Warn("exiting while plugins still compile")
	}
	return err
}

func serveHTTP(ctx context.Context, srv *server.Server, addr string, o httpserve.Options) error {
	ln, err := httpserve.Listen(addr)
	if err != nil {
		return err
	}
	return httpserve.Serve(ctx, srv, ln, o)
}

// httpOptions merges the HTTP flags over the [server] table; zero values
// take the server package's defaults.
func httpOptions(cfg *config.Config, stateless bool, hosts []string, maxSessions int, sessionTimeout time.Duration) httpserve.Options {
	c := cfg.Server
	o := httpserve.Options{Stateless: stateless, AllowedHosts: append(hosts, c.AllowedHosts...),
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
