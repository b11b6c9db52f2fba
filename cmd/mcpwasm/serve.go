package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/lifecycle"
)

// cmdServe parses serve's flags and runs lifecycle.Serve.
func cmdServe(args []string, stderr io.Writer) int {
	fs := newFlags("serve", stderr, "usage: mcpwasm serve [flags] [PLUGIN.wasm | DIR]...")
	var (
		lf        limitFlags
		of        opsFlags
		rf        remoteFlags
		o         lifecycle.ServeOptions
		roots     stringList
		hosts     stringList
		cfgPath   = fs.String("config", "", "TOML config file")
		logLevel  = fs.String("log-level", "info", "stderr log level: debug, info, warn, error")
		gcPercent = fs.Int("gc-percent", 400, "Go GC target percentage (GOGC, if set, wins); guest memories live off the Go heap, so the heap stays small")
	)
	fs.StringVar(&o.HTTP, "http", "", "serve Streamable HTTP on ADDR (host defaults to 127.0.0.1) at /mcp, instead of stdio")
	fs.BoolVar(&o.Stateless, "stateless", false, "stateless HTTP: serves 2026-07-28 clients; no server-to-client requests")
	fs.BoolVar(&o.NoPrefix, "no-prefix", false, "expose the tools and prompts of plugins given as arguments under their declared names, without the <plugin>_ prefix")
	fs.DurationVar(&o.LoadTimeout, "load-timeout", 60*time.Second, "plugins not ready this long after start are reported as load failures and not served")
	fs.IntVar(&o.MaxSessions, "max-sessions", 0, "HTTP: most live sessions; a new one over it gets 503 (default 1000)")
	fs.DurationVar(&o.SessionTimeout, "session-timeout", 0, "HTTP: close a session idle this long (default 30m)")
	fs.BoolVar(&o.Watch, "watch", true, "reload plugins when their files, their folders or the config file change (SIGHUP reloads either way)")
	fs.StringVar(&o.StateKeyFile, "state-key-file", "", "HTTP: sign multi round-trip requestState with the key in FILE, shared by all replicas (else $MCPWASM_STATE_KEY, else a random key)")
	fs.DurationVar(&o.ListTTL, "list-ttl", 0, "ttlMs of tools/prompts/resources list results, the caching hint of protocol 2026-07-28 (0: stale at once; at most 24h)")
	fs.BoolVar(&o.InsecureNoAuth, "insecure-no-auth", false, "HTTP: allow serving a non-loopback address without [server.auth] (e.g. behind an authenticating proxy)")
	fs.StringVar(&o.Trust, "trust", "", "replace every plugin's trust setting: off serves every declaration as it is (a plugin author's development run), tofu or pin (default: each plugin's own, \"tofu\")")
	fs.StringVar(&o.TaskStore, "task-store", "", "where tasks are kept: memory (default; one process) or redis://HOST:PORT/DB, shared by replicas ([server.tasks] store)")
	lf.register(fs)
	of.register(fs)
	rf.register(fs)
	fs.Var(&hosts, "allowed-host", "HTTP: accept this Host header (name or name:port; repeatable); needed beyond loopback against DNS rebinding")
	fs.Var(&roots, "root", "grant every plugin read-only access to DIR (repeatable); a client's roots narrow it further")
	confineMode := confineFlag(fs)
	fs.BoolVar(&o.BenchNativeEcho, "bench-native-echo", false, "bench only: also serve native_echo, a native Go echo tool in this server (see mcpwasm-bench)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	fail := func(code int, err error) int { fmt.Fprintln(stderr, "mcpwasm:", err); return code }
	// The same checks as their config keys (host/config).
	var flagErr error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "max-sessions":
			flagErr = errors.Join(flagErr, prefixErr("--max-sessions", config.CheckMaxSessions(o.MaxSessions)))
		case "session-timeout":
			flagErr = errors.Join(flagErr, prefixErr("--session-timeout", config.CheckSessionTimeout(o.SessionTimeout)))
		}
	})
	if flagErr != nil {
		return fail(2, flagErr)
	}
	if o.Confine, err = confine.ParseMode(*confineMode); err != nil {
		return fail(2, err)
	}
	o.Logger = newLogger(stderr, *logLevel)
	if err := startDebug(o.Logger); err != nil {
		return fail(2, err)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(*gcPercent)
	}
	o.Config = &config.Config{}
	if *cfgPath != "" {
		if o.Config, err = config.Load(*cfgPath); err != nil {
			return fail(2, err)
		}
	}
	if o.HTTP == "" {
		o.HTTP = o.Config.Server.HTTP
	}
	o.Stateless = o.Stateless || o.Config.Server.Stateless
	o.Args, o.ConfigPath, o.Roots, o.AllowedHosts = pos, *cfgPath, roots, hosts
	o.Limits, o.Remote, o.Ops = lf.limits(), rf.options(), of.o
	if o.Limits.CacheDir == "" {
		o.Limits.CacheDir = o.Config.Server.CacheDir
	}
	o.Version, o.Stderr = version, stderr
	if o.HTTP == "" {
		o.StdioOut = privateStdout(o.Logger) // before anything loads: nothing else may write to the stream
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := lifecycle.Serve(ctx, o); err != nil {
		if lifecycle.IsUsage(err) {
			return fail(2, err)
		}
		return fail(1, err)
	}
	return 0
}

// prefixErr is err with the flag it is about in front, or nil.
func prefixErr(flag string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", flag, err)
}
