package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/lifecycle"
	"github.com/mcpwasm/mcpwasm/host/source"
)

// cmdPull fetches the oci:// and https:// plugins of a config and of the
// arguments into the store, pins their tags in the lock file and checks
// their signatures, so that serve starts without waiting for the network
// (or with --offline, without it at all). --update resolves tags again and
// moves their pins. It prints one line per plugin on stderr (and progress
// while downloading, on a terminal); it exits 1 if any plugin failed.
func cmdPull(args []string, stderr io.Writer) int {
	fs := newFlags("pull", stderr, "usage: mcpwasm pull [--config FILE] [--update] [flags] [oci://… | https://…#sha256=HEX]...")
	var rf remoteFlags
	cfgPath := fs.String("config", "", "TOML config file: pull its oci:// and https:// plugins (pins go in mcpwasm.lock beside it)")
	update := fs.Bool("update", false, "resolve tags again, move their pins in the lock file, and look for signatures again")
	rf.register(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if rf.o.Offline {
		fmt.Fprintln(stderr, "mcpwasm pull: --offline: pull is what fetches; serve takes --offline")
		return 2
	}
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm pull:", err)
		return 2
	}
	type item struct {
		src string
		p   *config.Plugin
	}
	var items []item
	for i := range cfg.Plugins {
		if source.IsRemote(cfg.Plugins[i].Path) {
			items = append(items, item{cfg.Plugins[i].Path, &cfg.Plugins[i]})
		}
	}
	for _, a := range pos {
		if !source.IsRemote(a) {
			fmt.Fprintf(stderr, "mcpwasm pull: %s: not an oci:// or https:// source\n", a)
			return 2
		}
		items = append(items, item{a, nil})
	}
	if len(items) == 0 {
		fmt.Fprintln(stderr, "mcpwasm pull: nothing to pull: give --config FILE with oci:// or https:// plugins, or sources")
		return 2
	}
	pr := newPullProgress(stderr, isTerminal(stderr))
	f := lifecycle.NewFetcher(context.Background(), rf.options(), cfg, newLogger(stderr, "warn"))
	f.Update, f.Progress = *update, pr.update
	failed := 0
	for _, it := range items {
		start := time.Now()
		res, err := f.Get(it.src, it.p)
		pr.done()
		if err != nil {
			fmt.Fprintf(stderr, "failed  %v\n", err)
			failed++
			continue
		}
		fmt.Fprintln(stderr, pullLine(res, time.Since(start)))
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "mcpwasm pull: %d of %d plugin(s) failed\n", failed, len(items))
		return 1
	}
	return 0
}

// pullLine is the one line pull prints for a plugin.
func pullLine(res *source.Result, took time.Duration) string {
	verb, got := "ok     ", "in the store"
	if res.Fetched > 0 {
		verb = "pulled "
		got = fmt.Sprintf("%s in %s (%s/s)", bytesText(res.Fetched), took.Round(time.Millisecond), bytesText(rate(res.Fetched, took)))
	}
	pin := ""
	switch res.Pin {
	case "new":
		pin = ", pinned"
	case "lock":
		pin = ", pinned earlier"
	case "moved":
		verb = "moved  "
		pin = ", pin moved from " + res.Previous
	}
	return fmt.Sprintf("%s%s  %s  %s%s, signature: %s", verb, res.Ref.Raw, res.Digest, got, pin, res.Signature.String())
}

func rate(n int64, d time.Duration) int64 {
	if d <= 0 {
		return n
	}
	return int64(float64(n) / d.Seconds())
}

// bytesText writes a byte count for people: "812 B", "3.4 MiB".
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// pullProgress shows a download's bytes and rate on one line, rewritten in
// place at most ten times a second, on a terminal; elsewhere it shows
// nothing (pull prints one line per plugin when it is done).
type pullProgress struct {
	w     io.Writer
	tty   bool
	mu    sync.Mutex
	start time.Time
	last  time.Time
	shown bool
}

func newPullProgress(w io.Writer, tty bool) *pullProgress { return &pullProgress{w: w, tty: tty} }

func (p *pullProgress) update(pr source.Progress) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.start.IsZero() {
		p.start = now
	}
	if now.Sub(p.last) < 100*time.Millisecond && pr.Done != pr.Total {
		return
	}
	p.last = now
	total := "?"
	if pr.Total > 0 {
		total = bytesText(pr.Total)
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s  %s  %s / %s  %s/s", pr.Source, pr.What, bytesText(pr.Done), total, bytesText(rate(pr.Done, now.Sub(p.start))))
	p.shown = true
}

// done clears the progress line before the plugin's own line.
func (p *pullProgress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	p.shown, p.start, p.last = false, time.Time{}, time.Time{}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && fileIsTerminal(f)
}
