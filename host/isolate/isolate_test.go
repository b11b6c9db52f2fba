package isolate_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

var echoInput = []byte(`{"request":{"name":"echo","arguments":{"text":"the quick brown fox"}},"context":{"plugin":"echo"}}`)

func TestEchoInWorker(t *testing.T) {
	w := newWorker(t, "echo", plugin.Config{}, confine.Auto)
	out, cerr := w.Invoke(context.Background(), abi.ExportCallTool, echoInput, plugin.CallOptions{})
	if cerr != nil {
		t.Fatal(cerr)
	}
	if !strings.Contains(string(out), "the quick brown fox") {
		t.Fatalf("output %s", out)
	}
	st := w.Stats()
	if st.Pid == 0 || st.Starts != 1 {
		t.Fatalf("stats %+v", st)
	}
	if !strings.Contains(st.Confined, "seccomp") || !strings.Contains(st.Confined, "landlock-fs") {
		t.Fatalf("the worker is not confined: %q", st.Confined)
	}
}

// TestDeadlineKillsWorker: a guest that does not honour interruption
// (no interruption points) is answered timeout at its limit plus grace,
// its worker killed, and the next call runs in a new worker.
func TestDeadlineKillsWorker(t *testing.T) {
	w := newWorker(t, "spin", plugin.Config{Timeout: 300 * time.Millisecond, Interrupts: plugin.InterruptNone}, confine.Auto)
	pid := w.Stats().Pid
	t0 := time.Now()
	_, cerr := w.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`), plugin.CallOptions{})
	el := time.Since(t0)
	if cerr == nil || cerr.Category != abi.ErrTimeout || cerr.Details["worker_killed"] != true {
		t.Fatalf("got %v, want a timeout that killed the worker", cerr)
	}
	if el > 2*time.Second {
		t.Fatalf("answered after %s", el)
	}
	mustBeGone(t, pid, "worker")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if np := w.Stats().Pid; np == pid || np == 0 {
		t.Fatalf("no new worker: pid %d, was %d", np, pid)
	}
}

// TestCrashAnswersInFlight: a worker killed from outside (as the OOM
// killer would) answers its call worker_crashed and is restarted.
func TestCrashAnswersInFlight(t *testing.T) {
	w := newWorker(t, "sleep_forever", plugin.Config{Timeout: 20 * time.Second}, confine.Auto)
	pid := w.Stats().Pid
	errc := make(chan *plugin.Error, 1)
	go func() {
		_, cerr := w.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`), plugin.CallOptions{})
		errc <- cerr
	}()
	time.Sleep(300 * time.Millisecond)
	syscall.Kill(pid, syscall.SIGKILL)
	select {
	case cerr := <-errc:
		if cerr == nil || cerr.Category != abi.ErrWorkerCrashed || !strings.Contains(cerr.Message, "signal: killed") && !strings.Contains(cerr.Message, "killed by signal") && !strings.Contains(cerr.Message, "closed its socket") {
			t.Fatalf("got %v", cerr)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the in-flight call was not answered")
	}
	w2 := newWorker(t, "echo", plugin.Config{}, confine.Auto)
	_ = w2
	// The crashed worker is restarted and answers.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if np := w.Stats().Pid; np == pid || np == 0 {
		t.Fatalf("not restarted: pid %d", np)
	}
}

// TestCrashLoopBounded: after five crashes in the window the worker is
// not restarted, and calls say so.
func TestCrashLoopBounded(t *testing.T) {
	w := newWorker(t, "echo", plugin.Config{}, confine.Auto)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := 0; i < 5; i++ {
		st := w.Stats()
		if st.Pid == 0 {
			if _, err := w.Start(ctx); err != nil {
				if i == 4 || !strings.Contains(err.Error(), "crash") {
					t.Fatalf("start %d: %v", i, err)
				}
			}
			st = w.Stats()
		}
		syscall.Kill(st.Pid, syscall.SIGKILL)
		deadline := time.Now().Add(5 * time.Second)
		for w.Stats().Pid == st.Pid && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	_, cerr := w.Invoke(ctx, abi.ExportCallTool, echoInput, plugin.CallOptions{})
	if cerr == nil || cerr.Category != abi.ErrWorkerCrashed || cerr.Details["crash_loop"] != true {
		t.Fatalf("after five crashes: %v", cerr)
	}
}

// A worker builds its machine code before it is ready: the server's clock
// on a call starts when the call is sent, so a cold build inside the first
// call (a standard-Go module takes seconds) would be killed as a timeout.
func TestColdWorkerBuildsBeforeReady(t *testing.T) {
	w := newWorker(t, "sdk_go", plugin.Config{Timeout: 500 * time.Millisecond}, confine.Auto)
	in := []byte(`{"request":{"name":"pixel","arguments":{}},"context":{"plugin":"sdk_go"}}`)
	if _, cerr := w.Invoke(context.Background(), abi.ExportCallTool, in, plugin.CallOptions{}); cerr != nil {
		t.Fatalf("first call to a cold worker: %v", cerr)
	}
}
