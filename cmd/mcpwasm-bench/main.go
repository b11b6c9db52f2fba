// Command mcpwasm-bench measures mcpwasm side by side with a plain go-sdk
// server and the Node reference server (internal/bench), or soaks it with
// --soak. It is a command of its own so that the product binary carries no
// benchmark harness; it builds cmd/mcpwasm from the checkout it runs in.
//
//	testdata/build.sh && go run ./cmd/mcpwasm-bench [--quick] [--json FILE]
//	go run ./cmd/mcpwasm-bench --soak 100000
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpwasm/mcpwasm/internal/bench"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// run parses the bench flags and runs the harness (internal/bench).
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpwasm-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		o       bench.Options
		plugins stringList
	)
	fs.IntVar(&o.Rounds, "rounds", 0, "interleaved rounds; figures are medians over rounds (default 5, 3 with --quick)")
	fs.BoolVar(&o.Quick, "quick", false, "a short run (about 30 s)")
	fs.StringVar(&o.JSON, "json", "", "also write the report and raw per-round numbers to FILE")
	fs.Var(&plugins, "plugin", "a guest-language echo plugin to measure over stdio, NAME=PATH:TOOL (repeatable; it must echo \"message\")")
	fs.StringVar(&o.ColdPlugins, "cold-plugins", "", "folder of ~10 plugins incl. a ~3 MB standard-Go one, for cold start and idle RSS (skipped if not given)")
	fs.StringVar(&o.Fixtures, "fixtures", "", "folder with echo, spin, nap and recurse .wasm (default testdata/wasm)")
	fs.BoolVar(&o.NoNode, "no-node", false, "do not install or measure the Node reference server")
	soak := fs.Int("soak", 0, "instead of the figures, a soak of N tools/call requests per transport (stdio, HTTP), 5% to hostile fixtures (docs/performance.md uses 100000)")
	soakClients := fs.Int("soak-clients", 8, "--soak: concurrent clients (stdio goroutines, HTTP sessions)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcpwasm-bench [flags]   (run from the mcpwasm checkout, after testdata/build.sh)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	for _, p := range plugins {
		g, err := bench.ParsePlugin(p)
		if err != nil {
			fmt.Fprintln(stderr, "mcpwasm-bench:", err)
			return 2
		}
		o.Plugins = append(o.Plugins, g)
	}
	o.Stdout, o.Stderr = stdout, stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *soak > 0 {
		rep, err := bench.Soak(ctx, bench.SoakOptions{Calls: *soak, Clients: *soakClients, Fixtures: o.Fixtures, Stdout: stdout, Stderr: stderr})
		if err != nil {
			fmt.Fprintln(stderr, "mcpwasm-bench --soak:", err)
			return 1
		}
		if len(rep.Failures()) > 0 {
			return 1
		}
		return 0
	}
	if _, err := bench.Run(ctx, o); err != nil {
		fmt.Fprintln(stderr, "mcpwasm-bench:", err)
		return 1
	}
	return 0
}
