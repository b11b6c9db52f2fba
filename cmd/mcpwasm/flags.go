package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/lifecycle"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/source/store"
	"github.com/mcpwasm/mcpwasm/host/traceparent"
)

// newFlags is subcommand name's flag set: its errors go to stderr, and its
// Usage prints the usage lines, then the flags.
func newFlags(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		for _, l := range usage {
			fmt.Fprintln(stderr, l)
		}
		fs.PrintDefaults()
	}
	return fs
}

// loaderFlags are the flags of the commands that load plugins the way
// serve does (validate, trust, policy test and schema): the per-plugin
// limits, the remote options, --no-prefix and --load-timeout.
type loaderFlags struct {
	lf limitFlags
	rf remoteFlags
}

// register registers them on fs, --no-prefix and --load-timeout into
// noPrefix and timeout.
func (l *loaderFlags) register(fs *flag.FlagSet, noPrefix *bool, timeout *time.Duration) {
	fs.BoolVar(noPrefix, "no-prefix", false, "as serve: plugins given as arguments keep their declared names")
	fs.DurationVar(timeout, "load-timeout", 60*time.Second, "give up on a plugin not loaded this long after start")
	l.lf.register(fs)
	l.rf.register(fs)
}

// limits are the limit flags' values.
func (l *loaderFlags) limits() lifecycle.Limits { return l.lf.limits() }

// options are the remote flags' values.
func (l *loaderFlags) options() lifecycle.RemoteOptions { return l.rf.options() }

// loadConfig reads the config file at path, or gives an empty config when
// path is "".
func loadConfig(path string) (*config.Config, error) {
	if path == "" {
		return &config.Config{}, nil
	}
	return config.Load(path)
}

// configOrArgs loads the --config file of a command that works on a config,
// plugin arguments or both (trust, validate). With neither it prints
// "mcpwasm CMD: nothing" and returns exit code 2; a config that does not
// load is printed and returns 1; else it returns the config and 0.
func configOrArgs(cmd, nothing, cfgPath string, pos []string, stderr io.Writer) (*config.Config, int) {
	if cfgPath == "" && len(pos) == 0 {
		fmt.Fprintf(stderr, "mcpwasm %s: %s\n", cmd, nothing)
		return nil, 2
	}
	cfg, err := loadConfig(cfgPath)
	if err != nil {
		fmt.Fprintf(stderr, "mcpwasm %s: %v\n", cmd, err)
		return nil, 1
	}
	return cfg, 0
}

type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// limitFlags are the per-plugin defaults every command accepts.
type limitFlags struct {
	l       lifecycle.Limits
	roots   stringList // call: --root
	rwRoots stringList // call: --rw-root
	fs      *flag.FlagSet
}

func (l *limitFlags) register(fs *flag.FlagSet) {
	l.fs = fs
	fs.DurationVar(&l.l.Timeout, "timeout", 0, "per-call time limit (default 5s, or [defaults] timeout)")
	fs.StringVar(&l.l.Memory, "memory", "", "per-plugin memory limit, e.g. 64MiB (default 64MiB)")
	fs.StringVar(&l.l.MaxOutput, "max-output", "", "largest tool output accepted, e.g. 4MiB (default 4MiB)")
	fs.IntVar(&l.l.Concurrency, "concurrency", 0, "calls of one plugin running at once (default 8)")
	fs.StringVar(&l.l.Budget, "memory-budget", "4GiB", "growth of all guest memories together, across plugins and calls (0: unbounded)")
	def := plugin.DefaultCacheDir()
	if def == "" {
		def = "none: no user cache folder"
	}
	fs.StringVar(&l.l.CacheDir, "cache-dir", "", `compiled-code cache folder, private to this user ("off" to disable; default `+def+`)`)
}

// limits are the flags' values, with the flags given on the command line.
func (l *limitFlags) limits() lifecycle.Limits {
	out := l.l
	out.Roots, out.RWRoots = l.roots, l.rwRoots
	out.Given = map[string]bool{}
	if l.fs != nil {
		l.fs.Visit(func(f *flag.Flag) { out.Given[f.Name] = true })
	}
	return out
}

// remoteFlags are the flags of the commands that accept oci:// and
// https:// plugins.
type remoteFlags struct {
	o    lifecycle.RemoteOptions
	keys stringList
}

func (rf *remoteFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&rf.o.Offline, "offline", false, "never touch the network: oci:// and https:// plugins come from the store (see mcpwasm pull)")
	fs.StringVar(&rf.o.Verify, "verify", "", `signature policy for oci:// plugins: "required", "if-signed" or "off" (default: if-signed with --key or [sources] keys, else off)`)
	fs.Var(&rf.keys, "key", "PEM public key (cosign.pub) trusted for oci:// plugin signatures (repeatable)")
	def := store.DefaultDir()
	if def == "" {
		def = "none: no user cache folder"
	}
	fs.StringVar(&rf.o.StoreDir, "store", "", "plugin store for oci:// and https:// plugins, private to this user (default [sources] store, else "+def+")")
}

// options are the flags' values.
func (rf *remoteFlags) options() lifecycle.RemoteOptions {
	o := rf.o
	o.Keys = rf.keys
	return o
}

// opsFlags are serve's operator flags.
type opsFlags struct{ o lifecycle.OpsOptions }

func (o *opsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.o.Admin, "admin", "", "serve /healthz, /readyz and /metrics on ADDR (host defaults to 127.0.0.1), without authentication; works in stdio mode too")
	fs.StringVar(&o.o.AuditLog, "audit-log", "", "append the audit log (one JSON line per call and per denial) to FILE; - for stderr")
}

// confineFlag registers --confine on fs.
func confineFlag(fs *flag.FlagSet) *string {
	return fs.String("confine", "auto", "after loading, confine this process with no_new_privs, Landlock and seccomp: auto (what the kernel supports), required (refuse to start without all of it) or off")
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(traceparent.LogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})))
}
