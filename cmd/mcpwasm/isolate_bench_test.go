package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkIsolation: what a worker process per plugin costs. The same
// WAT echo is served by two servers over stdio, one with
// MCPWASM_ISOLATION=in-process and one with =process (its echo in a
// confined worker under the launcher), called alternately so both see the
// same load. Reported: each median call (p50-in-process-µs,
// p50-process-µs), their ratio (process/in-process), and the worker's own
// anonymous memory after the calls (worker-PssAnon-KiB: Pss_Anon in
// /proc/PID/smaps_rollup; the binary's file pages are shared).
//
//	go test -run '^$' -bench Isolation -benchtime 2000x ./cmd/mcpwasm
func BenchmarkIsolation(b *testing.B) {
	modes := []string{"in-process", "process"}
	servers := map[string]*mcp.ClientSession{}
	var isolated *exec.Cmd
	for _, mode := range modes {
		cs, cmd := isolationServer(b, mode, fixture.Path(b, "echo"))
		servers[mode] = cs
		if mode == "process" {
			isolated = cmd
		}
	}
	ctx := context.Background()
	call := func(mode string) time.Duration {
		t := time.Now()
		res, err := servers[mode].CallTool(ctx, &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{"message": "x"}})
		if err != nil || res.IsError {
			b.Fatalf("isolation=%s: %+v, %v", mode, res, err)
		}
		return time.Since(t)
	}
	p50 := alternateP50(b, modes, call)
	b.ReportMetric(p50["process"]/p50["in-process"], "process/in-process")
	if w := descendant(isolated.Process.Pid, 2); w > 0 {
		b.ReportMetric(float64(pssAnonKiB(w)), "worker-PssAnon-KiB")
	}
}

// isolationServer starts serve over stdio with the given isolation.
func isolationServer(b *testing.B, isolation string, args ...string) (*mcp.ClientSession, *exec.Cmd) {
	b.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--trust", "off", "--cache-dir", b.TempDir(), "--log-level", "warn"}, args...)...)
	cmd.Env = append(os.Environ(), "MCPWASM_ISOLATION="+isolation)
	return connectStdio(b, cmd, &bytes.Buffer{}), cmd
}

// BenchmarkWorkerMemory: a worker's own anonymous memory (Pss_Anon),
// idle after b.N calls, for a WAT, a Rust and a standard-Go plugin (the
// SDK parity fixtures' pixel tool; the echo's echo).
//
//	go test -run '^$' -bench WorkerMemory -benchtime 200x ./cmd/mcpwasm
func BenchmarkWorkerMemory(b *testing.B) {
	for _, name := range []string{"echo", "sdk_rust", "sdk_go"} {
		b.Run(name, func(b *testing.B) {
			cs, cmd := isolationServer(b, "process", fixture.Path(b, name))
			ctx := context.Background()
			tool := ""
			for t, err := range cs.Tools(ctx, nil) {
				if err != nil {
					b.Fatal(err)
				}
				if strings.HasSuffix(t.Name, "_pixel") || strings.HasSuffix(t.Name, "_echo") {
					tool = t.Name
				}
			}
			for range b.N {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"message": "x"}})
				if err != nil || res.IsError {
					b.Fatalf("%s: %+v, %v", tool, res, err)
				}
			}
			b.StopTimer()
			time.Sleep(5 * time.Second) // idle: the Go heap the compile left is partly returned
			w := descendant(cmd.Process.Pid, 2)
			if w == 0 {
				b.Fatal("no worker process")
			}
			b.ReportMetric(float64(pssAnonKiB(w))/1024, "worker-PssAnon-MiB")
		})
	}
}

// descendant follows children depth levels down from pid (server →
// launcher → worker), the first found at each; 0 if there is none.
func descendant(pid, depth int) int {
	for range depth {
		next := 0
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			b, err := os.ReadFile("/proc/" + e.Name() + "/status")
			if err == nil && strings.Contains(string(b), "\nPPid:\t"+strconv.Itoa(pid)+"\n") {
				next, _ = strconv.Atoi(e.Name())
				break
			}
		}
		if next == 0 {
			return 0
		}
		pid = next
	}
	return pid
}

// pssAnonKiB is a process's Pss_Anon.
func pssAnonKiB(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Pss_Anon:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// BenchmarkIsolationHTTP: echo calls per second over Streamable HTTP, 32
// client sessions calling at once, to a server whose plugins run in
// process and to one whose plugins run in a worker (MCPWASM_ISOLATION).
// The ratio process/in-process is the figure.
//
//	go test -run '^$' -bench IsolationHTTP -benchtime 4000x ./cmd/mcpwasm
func BenchmarkIsolationHTTP(b *testing.B) {
	kf := writeStateKey(b, strings.Repeat("0123456789abcdef", 4))
	cfg := unlimitedConfig(b)
	for _, mode := range []string{"in-process", "process"} {
		b.Run("isolation="+mode, func(b *testing.B) {
			b.Setenv("MCPWASM_ISOLATION", mode)
			urls, _ := startReplicas(b, 1, "--state-key-file", kf, "--config", cfg)
			var samples atomic.Int32
			clients := make(chan *mcp.ClientSession, 32)
			for range cap(clients) {
				clients <- statelessClient(b, urls[0], &samples)
			}
			echoParallel(b, clients, 1)
		})
	}
}
