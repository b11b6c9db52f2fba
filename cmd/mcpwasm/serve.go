package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
)

type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func cmdServe(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		lf        limitFlags
		cfgPath   = fs.String("config", "", "TOML config file")
		httpAddr  = fs.String("http", "", "serve Streamable HTTP on ADDR (host defaults to 127.0.0.1) at /mcp, instead of stdio")
		stateless = fs.Bool("stateless", false, "stateless HTTP: serves 2026-07-28 clients; no server-to-client requests")
		logLevel  = fs.String("log-level", "info", "stderr log level: debug, info, warn, error")
		gcPercent = fs.Int("gc-percent", 400, "Go GC target percentage (GOGC, if set, wins); guest memories live off the Go heap, so the heap stays small")
		noPrefix  = fs.Bool("no-prefix", false, "expose the tools and prompts of plugins given as arguments under their declared names, without the <plugin>_ prefix")
		roots     stringList
	)
	lf.register(fs)
	fs.Var(&roots, "root", "grant every plugin read-only access to DIR (repeatable); a client's roots narrow it further")
	benchNative := fs.Bool("bench-native-echo", false, "bench only: also serve native_echo, a native Go echo tool in this server (see mcpwasm bench)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcpwasm serve [flags] [PLUGIN.wasm | DIR]...")
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	logger := newLogger(stderr, *logLevel)
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
	*stateless = *stateless || cfg.Server.Stateless
	if lf.cacheDir == "" {
		lf.cacheDir = cfg.Server.CacheDir
	}
	base, err := lf.defaults(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}
	if base.Grants, err = rootGrants(append(roots, cfg.Server.Roots...)); err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
		return 2
	}
	specs, err := collect(pos, cfg, base, *noPrefix)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm:", err)
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
	reg := registry.New()
	name := cfg.Server.Name
	srv := server.New(reg, server.Options{Name: name, Version: version, Logger: logger, Features: scanFeatures(specs, logger)})
	if *benchNative {
		srv.AddNativeEcho()
	}

	// Plugins load in the background: the handshake is answered at once, and
	// tool requests wait until the first load finishes.
	go func() {
		loadAll(ctx, rt, reg, srv, specs, logger)
		srv.Ready()
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
		drainCtx, cancel := context.WithTimeout(context.Background(), drainFor+time.Second)
		srv.Drain(drainCtx)
		cancel()
		// A handler returns before go-sdk writes its response; give the
		// last responses a moment to reach the transport.
		time.Sleep(200 * time.Millisecond)
		cancelRun()
	}()
	if *httpAddr != "" {
		err = serveHTTP(runCtx, srv, *httpAddr, *stateless, logger)
	} else {
		logger.Info("serving MCP over stdio", "plugins", len(specs))
		err = srv.ServeStdio(runCtx, server.StdioOptions{Out: stdioOut, DrainTimeout: drainFor + time.Second})
	}
	reg.Close(context.Background())
	rt.Close(context.Background())
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
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

// loadAll compiles plugins in parallel and publishes each one's tools as it
// is ready. A plugin that fails is reported and skipped; the rest serve.
func loadAll(ctx context.Context, rt *plugin.Runtime, reg *registry.Registry, srv *server.Server, specs []spec, logger *slog.Logger) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, s := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			p, err := rt.Load(ctx, s.cfg)
			if err != nil {
				logger.Error("plugin not loaded", "err", err)
				return
			}
			e, err := reg.Add(ctx, p, registry.AddOptions{Unprefixed: s.unprefixed})
			if err != nil {
				logger.Error("plugin not loaded", "source", s.cfg.Source, "err", err)
				p.Close(ctx)
				return
			}
			srv.AddEntry(e)
			logger.Info("plugin loaded", "plugin", p.Name(), "source", s.cfg.Source, "tools", len(e.Tools),
				"resources", len(e.Resources)+len(e.Templates), "prompts", len(e.Prompts),
				"took", time.Since(start).Round(time.Millisecond))
		}()
	}
	wg.Wait()
}

func serveHTTP(ctx context.Context, srv *server.Server, addr string, stateless bool, logger *slog.Logger) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: %v (use HOST:PORT or :PORT)", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(server.HTTPOptions{Stateless: stateless}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("serving MCP over Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp", "stateless", stateless)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
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
