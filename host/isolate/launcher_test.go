//go:build linux

package isolate_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/isolate"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// startLauncher starts a launcher confined to a server-like policy: the
// temporary folders (the workers' caches) and nothing else.
func startLauncher(t *testing.T) *isolate.Launcher {
	t.Helper()
	l, err := isolate.StartLauncher(os.Args[0], confine.Policy{ReadWrite: []string{os.TempDir()}}, confine.Required)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestLauncherStartsWorkers: a server that can no longer exec (here the
// test, which stands for it) has its confined launcher start the worker;
// the call runs, and a deadline kill goes through the launcher too.
func TestLauncherStartsWorkers(t *testing.T) {
	l := startLauncher(t)
	w := newWorkerVia(t, l, "echo", plugin.Config{}, confine.Required)
	out, cerr := w.Invoke(context.Background(), abi.ExportCallTool, echoInput, plugin.CallOptions{})
	if cerr != nil || !strings.Contains(string(out), "quick brown") {
		t.Fatalf("%s %v", out, cerr)
	}
	if st, _ := os.ReadFile("/proc/" + itoa(w.Stats().Pid) + "/status"); !strings.Contains(string(st), "PPid:\t"+itoa(l.Pid())) {
		t.Fatalf("the worker is not the launcher's child:\n%s", st)
	}

	s := newWorkerVia(t, l, "spin", plugin.Config{Timeout: 300 * time.Millisecond, Interrupts: plugin.InterruptNone}, confine.Required)
	pid := s.Stats().Pid
	_, cerr = s.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`), plugin.CallOptions{})
	if cerr == nil || cerr.Category != abi.ErrTimeout || cerr.Details["worker_killed"] != true {
		t.Fatalf("got %v, want a timeout that killed the worker", cerr)
	}
	mustBeGone(t, pid, "worker killed at its deadline")
}

// TestLauncherCannotExecOthers: the launcher's wall allows its own
// binary only: a worker (which inherits it) that tries to run another
// program is refused even with its own confinement off.
func TestLauncherConfined(t *testing.T) {
	if !isolate.ProbesBuilt {
		t.Skip("needs -tags isolateprobe")
	}
	l := startLauncher(t)
	w := newWorkerVia(t, l, "echo", plugin.Config{}, confine.Off)
	res, err := w.Probe(context.Background(), isolate.ProbeTargets{Exec: "/bin/true", Read: []string{"/etc/passwd"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Errno == 0 {
			t.Errorf("%s succeeded in a worker under the launcher's wall", r.What)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
