package isolate_test

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/isolate"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// BenchmarkWorkerStart: a worker started, confined, its plugin loaded
// from a warm compile cache, and answering: New+Start+Close per op (the
// first start, outside the timer, warms the cache).
//
//	go test -run '^$' -bench WorkerStart -benchtime 20x ./host/isolate
func BenchmarkWorkerStart(b *testing.B) {
	data, err := os.ReadFile(fixture.Path(b, "echo"))
	if err != nil {
		b.Fatal(err)
	}
	cache := b.TempDir()
	start := func() *isolate.Worker {
		w := isolate.New(isolate.Options{Config: plugin.Config{Name: "echo", Wasm: data}, Exe: os.Args[0], Args: []string{},
			Env: []string{workerEnv}, CacheDir: cache, Confine: confine.Auto})
		if _, err := w.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		return w
	}
	start().Close()
	b.ResetTimer()
	for range b.N {
		w := start()
		b.StopTimer()
		w.Close()
		b.StartTimer()
	}
}

// BenchmarkDeadlineKill: a call whose guest ignores interruption (no
// interruption points, an endless loop) under a 1s limit: when it is
// answered (timeout), its worker killed. Reported: answered-ms.
//
//	go test -run '^$' -bench DeadlineKill -benchtime 3x ./host/isolate
func BenchmarkDeadlineKill(b *testing.B) {
	w := newWorker(b, "spin", plugin.Config{Timeout: time.Second, Interrupts: plugin.InterruptNone}, confine.Auto)
	var total time.Duration
	for range b.N {
		if _, err := w.Start(context.Background()); err != nil { // the previous one was killed
			b.Fatal(err)
		}
		t0 := time.Now()
		_, cerr := w.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`), plugin.CallOptions{})
		total += time.Since(t0)
		if cerr == nil || cerr.Category != abi.ErrTimeout {
			b.Fatalf("got %v", cerr)
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "answered-ms")
}

// BenchmarkCrashRestart: a worker SIGKILLed from outside (as the OOM
// killer would), then a call: the time from the kill to the call's
// answer from the restarted worker. Reported: restart-ms. The crash
// window is left between runs (two crashes in a row back off 100ms).
//
//	go test -run '^$' -bench CrashRestart -benchtime 10x ./host/isolate
func BenchmarkCrashRestart(b *testing.B) {
	var total time.Duration
	for range b.N {
		b.StopTimer()
		w := newWorker(b, "echo", plugin.Config{}, confine.Auto)
		pid := w.Stats().Pid
		b.StartTimer()
		t0 := time.Now()
		syscall.Kill(pid, syscall.SIGKILL)
		for w.Stats().Pid == pid {
			time.Sleep(time.Millisecond)
		}
		if _, cerr := w.Invoke(context.Background(), abi.ExportCallTool, echoInput, plugin.CallOptions{}); cerr != nil {
			b.Fatal(cerr)
		}
		total += time.Since(t0)
		b.StopTimer()
		w.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "restart-ms")
}
