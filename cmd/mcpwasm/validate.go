package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/lifecycle"
)

// cmdValidate parses validate's flags and runs lifecycle.Validate: the
// plugins loaded as serve would, serve's start-up checks, no serving.
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
		sc        lifecycle.ServeChecks
		of        opsFlags
		walls     = fs.Bool("confine", false, "apply serve's confinement (--confine=auto), load the plugins under it, then try what a compromised process would: read outside the rules, write into the plugin folder, exec, ptrace, connect; one line per attempt, exit 1 unless every one is refused")
	)
	fs.StringVar(&sc.HTTPAddr, "http", "", "as serve: check the HTTP listen address, authentication and limits")
	fs.StringVar(&sc.KeyFile, "state-key-file", "", "as serve: check the requestState key file")
	fs.BoolVar(&sc.InsecureNoAuth, "insecure-no-auth", false, "as serve: allow a non-loopback --http without [server.auth]")
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
	cfg := &config.Config{}
	if *cfgPath != "" {
		if cfg, err = config.Load(*cfgPath); err != nil {
			fmt.Fprintln(stderr, "mcpwasm validate:", err)
			return 1
		}
	}
	return lifecycle.Validate(lifecycle.ValidateOptions{Args: pos, Config: cfg, Limits: lf.limits(), Remote: rf.options(),
		Ops: of.o, NoPrefix: *noPrefix, Roots: roots, LoadTimeout: *loadLimit, Checks: sc, Confine: *walls, ConfigPath: *cfgPath}, stdout, stderr)
}
