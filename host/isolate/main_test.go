package isolate_test

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/isolate"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// workerEnv makes the test binary a worker (TestMain).
const workerEnv = "MCPWASM_ISOLATE_TEST_WORKER=1"

func TestMain(m *testing.M) {
	// This test binary is also the worker and the launcher, as mcpwasm is.
	if os.Getenv("MCPWASM_ISOLATE_TEST_WORKER") == "1" || len(os.Args) > 1 && os.Args[1] == isolate.Subcommand {
		os.Exit(isolate.WorkerMain())
	}
	if mode := os.Getenv(hostileEnv); mode != "" {
		os.Exit(hostileWorker(mode))
	}
	if len(os.Args) > 1 && os.Args[1] == isolate.LauncherSubcommand {
		os.Exit(isolate.LauncherMain())
	}
	os.Exit(m.Run())
}

// newWorker starts a worker (this test binary) for a fixture.
func newWorker(t testing.TB, name string, cfg plugin.Config, mode confine.Mode) *isolate.Worker {
	t.Helper()
	return newWorkerVia(t, nil, name, cfg, mode)
}

// newWorkerVia starts a worker through l (nil: directly).
func newWorkerVia(t testing.TB, l *isolate.Launcher, name string, cfg plugin.Config, mode confine.Mode) *isolate.Worker {
	t.Helper()
	return newWorkerOpts(t, name, cfg, isolate.Options{Confine: mode, Launcher: l})
}

// newWorkerOpts starts a worker with o (its Config, Exe, Args, Env and
// CacheDir set here).
func newWorkerOpts(t testing.TB, name string, cfg plugin.Config, o isolate.Options) *isolate.Worker {
	t.Helper()
	data, err := os.ReadFile(fixture.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name, cfg.Source, cfg.Wasm = name, name+".wasm", data
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	o.Config, o.Exe, o.Args, o.Env, o.CacheDir = cfg, os.Args[0], []string{}, []string{workerEnv}, t.TempDir()
	w := isolate.New(o)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// mustBeGone fails t unless process pid (what names it) is gone within a
// few seconds: it is polled, as a killed worker takes a moment to be
// reaped.
func mustBeGone(t testing.TB, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		t.Fatalf("%s %d still alive:\n%s", what, pid, st)
	}
}
