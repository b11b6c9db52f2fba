package main

import (
	"fmt"
	"io"

	"github.com/mcpwasm/mcpwasm/host/lifecycle"
)

// cmdValidate parses validate's flags and runs lifecycle.Validate: the
// plugins loaded as serve would, serve's start-up checks, no serving.
func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("validate", stderr, "usage: mcpwasm validate [--config FILE] [flags] [PLUGIN.wasm | DIR]...")
	var (
		o       lifecycle.ValidateOptions
		lf      loaderFlags
		of      opsFlags
		roots   stringList
		cfgPath = fs.String("config", "", "TOML config file to check")
	)
	lf.register(fs, &o.NoPrefix, &o.LoadTimeout)
	fs.BoolVar(&o.Confine, "confine", false, "apply serve's confinement (--confine=auto), load the plugins under it, then try what a compromised process would: read outside the rules, write into the plugin folder, exec, ptrace, connect; one line per attempt, exit 1 unless every one is refused")
	fs.StringVar(&o.Checks.HTTPAddr, "http", "", "as serve: check the HTTP listen address, authentication and limits")
	fs.StringVar(&o.Checks.KeyFile, "state-key-file", "", "as serve: check the requestState key file")
	fs.BoolVar(&o.Checks.InsecureNoAuth, "insecure-no-auth", false, "as serve: allow a non-loopback --http without [server.auth]")
	of.register(fs)
	fs.Var(&roots, "root", "as serve: grant every plugin read-only access to DIR (repeatable)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if o.LoadTimeout <= 0 {
		fmt.Fprintf(stderr, "mcpwasm validate: --load-timeout %s: must be positive\n", o.LoadTimeout)
		return 2
	}
	var code int
	if o.Config, code = configOrArgs("validate", "nothing to check: give --config FILE, plugin files or folders", *cfgPath, pos, stderr); code != 0 {
		return code
	}
	o.Args, o.Limits, o.Remote, o.Ops, o.Roots, o.ConfigPath = pos, lf.limits(), lf.options(), of.o, roots, *cfgPath
	return lifecycle.Validate(o, stdout, stderr)
}
