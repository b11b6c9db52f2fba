package lifecycle

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/isolate"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// Isolation is how the catalog starts the workers of isolated plugins
// (Spec.Isolated; host/isolate).
type Isolation struct {
	// Launcher starts workers once the server is confined (it can no
	// longer exec); nil: the server execs them itself.
	Launcher *isolate.Launcher
	// Exe is the binary workers run. Default: this one.
	Exe string
	// CacheDir is the server's compile cache folder ("off": none).
	CacheDir string
	// Confine is the workers' confinement mode.
	Confine confine.Mode
	Logger  *slog.Logger
}

// startIsolation prepares workers for the isolated plugins among specs:
// when the server is about to confine itself (mode not Off), a launcher
// confined to the server's own policy, started now, while the server may
// still exec. Workers confine themselves in any mode but Required's
// stricter form: a server run with --confine=off still isolates.
func startIsolation(mode confine.Mode, policy confine.Policy, cacheDir string, specs []Spec, logger *slog.Logger) (*Isolation, error) {
	iso := &Isolation{CacheDir: cacheDir, Confine: confine.Auto, Logger: logger}
	if iso.CacheDir == "" {
		iso.CacheDir = plugin.DefaultCacheDir()
	}
	if iso.CacheDir == "" {
		iso.CacheDir = "off"
	}
	if mode == confine.Required {
		iso.Confine = confine.Required
	}
	any := false
	for _, s := range specs {
		any = any || s.Isolated
	}
	if !any || mode == confine.Off {
		return iso, nil
	}
	if root := isolate.CacheRoot(iso.CacheDir); root != "" {
		// The workers' caches: made now, so that the launcher's wall
		// (the server's own) can name the folder.
		if err := os.MkdirAll(root, 0o700); err == nil {
			policy.ReadWrite = append(append([]string(nil), policy.ReadWrite...), root)
		}
	}
	l, err := isolate.StartLauncher("", policy, mode)
	if err != nil {
		return nil, fmt.Errorf("isolation: %w", err)
	}
	iso.Launcher = l
	return iso, nil
}

// Close stops the launcher and, with it, any worker left.
func (iso *Isolation) Close() {
	if iso != nil && iso.Launcher != nil {
		iso.Launcher.Close()
	}
}

// isolates reports whether s runs in a worker.
func (c *Catalog) isolates(s Spec) bool { return s.Isolated && c.isolation != nil }

// runConfig is s's plugin configuration, with a worker as its Remote when
// s is isolated.
func (c *Catalog) runConfig(s Spec) plugin.Config {
	cfg := s.Config
	if c.isolates(s) {
		iso := c.isolation
		cfg.Remote = isolate.New(isolate.Options{Config: s.Config, Exe: iso.Exe, CacheDir: iso.CacheDir, Confine: iso.Confine,
			Launcher: iso.Launcher, Logger: iso.Logger})
	}
	return cfg
}

// SetIsolation gives the catalog the means to start workers; until then
// isolated plugins run in process.
func (c *Catalog) SetIsolation(iso *Isolation) { c.isolation = iso }

// checkWorkers is validate --confine for the isolated plugins among
// specs: each one's worker policy, then the attempts a worker confined to
// it makes (isolate.Check), one line each. It returns how many were not
// refused. It runs before validate confines itself: it execs.
func checkWorkers(specs []Spec, cacheDir, writeDir string, stdout, stderr io.Writer) int {
	if cacheDir == "" {
		cacheDir = plugin.DefaultCacheDir()
	}
	failed := 0
	for _, s := range specs {
		if !s.Isolated {
			continue
		}
		o := isolate.Options{Config: s.Config, CacheDir: cacheDir, Confine: confine.Auto}
		fmt.Fprintf(stdout, "worker %s: %s\n", s.Config.Name, isolate.DescribePolicy(isolate.PolicyFor(o)))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		confined, attempts, err := isolate.Check(ctx, o, writeDir)
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "mcpwasm validate: worker %s: %v\n", s.Config.Name, err)
			failed++
			continue
		}
		fmt.Fprintf(stdout, "worker %s confined: %s\n", s.Config.Name, confined)
		for _, a := range attempts {
			fmt.Fprintf(stdout, "worker %s: %s\n", s.Config.Name, a)
			if !a.Refused {
				failed++
			}
		}
	}
	if failed > 0 {
		fmt.Fprintln(stderr, "mcpwasm validate: confinement check failed in a worker: an attempt was not refused (FAILED lines)")
	}
	return failed
}
