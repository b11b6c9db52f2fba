package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// Figure 7: guest code at engine speed, and every deadline kept. Each
// compute-bound guest runs in this process with interruption points (how
// mcpwasm runs every guest) and unchanged with no checks at all (the
// engine's own speed, unsafe), and the ratio is reported; wazero's own
// check (WithCloseOnContextDone), which mcpwasm used before, is shown for
// comparison. Then the loop-free call tree under a 1 s limit through the
// real binary, and the longest garbage-collector pause while guests
// compute.
const (
	figHash      = "7 hash kernel (FNV-1a, 32 MiB): interruption points / no checks"
	figTree      = "7 call tree, no loops (2^25 calls): interruption points / no checks"
	figLeafLoop  = "7 loop calling a leaf function: interruption points / no checks"
	figTight     = "7 5-instruction loop: interruption points / no checks"
	figEngine    = "7 the same with wazero's own check / no checks (before)"
	figTextkit   = "7 textkit %s, 1.6 MB: interruption points / no checks"
	figCallTree  = "7 call tree (depth 34, no loops), 1 s limit: answered after"
	figCallCPU   = "7 CPU used by the process in the 500 ms after that answer"
	figGCPause   = "7 longest wait for the world to stop for GC, 2 guests computing"
	figGCFloor   = "7 the same with only trivial calls (this machine's floor)"
	computeLimit = 2 * time.Minute
)

// computeKernel is one compute-bound call.
type computeKernel struct {
	fig, target string
	limit       float64
	wasm        string // path
	export      string
	input       []byte
}

func (e *env) compute(ctx context.Context) error {
	path, err := e.fixture("compute")
	if err != nil {
		for _, f := range []string{figHash, figTree, figLeafLoop, figTight} {
			e.rep.skip(f, "", err.Error())
		}
		return err
	}
	kernels := []computeKernel{
		{figHash, "≤ 1.15×", 1.15, path, "hash", nil},
		{figTree, "≤ 1.15×", 1.15, path, "tree", nil},
		{figLeafLoop, "≤ 1.3×", 1.3, path, "leafloop", nil},
		{figTight, "≤ 3×", 3, path, "tight", nil},
	}
	textkit := filepath.Join(e.root, "plugins", "textkit", "textkit.wasm")
	if _, err := os.Stat(textkit); err == nil {
		text := strings.Repeat("The quick brown fox jumps over the lazy dog; HTTPServerError and my_var 2024-01-02.\n", 1_600_000/84)
		changed := strings.Replace(text, "lazy", "LAZY", 40)
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"count", map[string]any{"text": text}},
			{"regex_find", map[string]any{"text": text, "pattern": `(\d{4})-(\d{2})`, "max_matches": 1000}},
			{"diff", map[string]any{"a": text, "b": changed}},
		} {
			input, _ := json.Marshal(map[string]any{"request": map[string]any{"name": c.tool, "arguments": c.args}, "context": map[string]any{}})
			kernels = append(kernels, computeKernel{fmt.Sprintf(figTextkit, c.tool), "≤ 1.1×", 1.1, textkit, abi.ExportCallTool, input})
		}
	} else {
		e.rep.skip(fmt.Sprintf(figTextkit, "count"), "≤ 1.1×", "plugins/textkit/textkit.wasm is not built (scripts/build-plugins.sh)")
	}

	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off", MemoryBudget: 0})
	if err != nil {
		return err
	}
	defer rt.Close(context.Background())
	loaded := map[string]*plugin.Plugin{}
	load := func(path string, mode plugin.InterruptMode) (*plugin.Plugin, error) {
		key := fmt.Sprint(path, mode)
		if p := loaded[key]; p != nil {
			return p, nil
		}
		wasm, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		p, err := rt.Load(ctx, plugin.Config{Name: filepath.Base(path), Source: path, Wasm: wasm,
			Timeout: computeLimit, MemoryLimit: 1 << 30, Interrupts: mode})
		if err == nil {
			loaded[key] = p
		}
		return p, err
	}
	defer func() {
		for _, p := range loaded {
			p.Close(context.Background())
		}
	}()
	// fastest of n calls, in ms
	timeCall := func(p *plugin.Plugin, k computeKernel, n int) (float64, error) {
		best := 0.0
		for range n {
			t := time.Now()
			if _, cerr := p.Invoke(ctx, k.export, k.input); cerr != nil {
				return 0, fmt.Errorf("%s: %s", k.export, cerr.Message)
			}
			if ms := float64(time.Since(t).Microseconds()) / 1000; best == 0 || ms < best {
				best = ms
			}
		}
		return best, nil
	}
	per := pick(e.o.Quick, 2, 3)
	var engine []string
	for _, k := range kernels {
		points, err1 := load(k.wasm, plugin.InterruptPoints)
		none, err2 := load(k.wasm, plugin.InterruptNone)
		if err1 != nil || err2 != nil {
			e.rep.skip(k.fig, k.target, fmt.Sprint(err1, err2))
			continue
		}
		var ratios []float64
		for range e.rounds {
			a, err := timeCall(points, k, per)
			if err != nil {
				return err
			}
			b, err := timeCall(none, k, per)
			if err != nil {
				return err
			}
			e.rep.raw("compute/"+k.export+"/points_ms", a)
			e.rep.raw("compute/"+k.export+"/none_ms", b)
			ratios = append(ratios, a/b)
		}
		e.rep.check(k.fig, median(ratios), "x", "<=", k.limit, k.target)
		if k.export != abi.ExportCallTool && k.export != "tight" { // tight takes ~8 s with wazero's check
			eng, err := load(k.wasm, plugin.InterruptEngine)
			if err != nil {
				return err
			}
			a, err := timeCall(eng, k, 1)
			if err != nil {
				return err
			}
			b, _ := timeCall(none, k, 1)
			engine = append(engine, fmt.Sprintf("%s %.1f×", k.export, a/b))
		}
	}
	if len(engine) > 0 {
		e.rep.infoText(figEngine, strings.Join(engine, ", "))
	}
	if err := e.callTreeDeadline(ctx); err != nil {
		e.warn("%s: %v", figCallTree, err)
	}
	return e.gcPause(ctx, load, path)
}

// callTreeDeadline runs the loop-free call tree through the real binary
// with a 1 s limit: when the answer comes, and whether the CPU stops.
func (e *env) callTreeDeadline(ctx context.Context) error {
	path, err := e.fixture("calltree")
	if err != nil {
		e.rep.skip(figCallTree, "≤ 1.1 s", err.Error())
		return nil
	}
	var took, cpu []float64
	for range e.rounds {
		p, err := e.startStdio(ctx, httpVersion, e.mcpwasm, "serve", "--timeout", "1s", "--cache-dir", e.cache, "--log-level", "error", path)
		if err != nil {
			return err
		}
		t := time.Now()
		_, err = callTool(ctx, p.cs, "calltree_calltree", map[string]any{})
		d := time.Since(t)
		if err == nil || !strings.Contains(err.Error(), "time limit") {
			p.close()
			return fmt.Errorf("want a timeout result, got %v", err)
		}
		before := procCPU(p.cmd.Process.Pid)
		time.Sleep(500 * time.Millisecond)
		after := procCPU(p.cmd.Process.Pid)
		p.close()
		took, cpu = append(took, float64(d.Milliseconds())), append(cpu, float64((after-before).Milliseconds()))
	}
	e.rep.check(figCallTree, median(took), "ms", "<=", 1100, "≤ 1100 ms")
	e.rep.info(figCallCPU, median(cpu), "ms")
	return nil
}

// procCPU is a process's user and system CPU time so far (Linux).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}

// gcPause runs two compute-bound guests for a while with collections forced
// every 10 ms, and reports the longest time the runtime waited for every
// goroutine to stop (runtime/metrics, /sched/pauses/stopping/gc; the
// histogram bucket's upper bound): a guest that reached no safe point would
// show here. The same with trivial calls only is this machine's floor (the
// OS scheduling the process's threads).
func (e *env) gcPause(ctx context.Context, load func(string, plugin.InterruptMode) (*plugin.Plugin, error), path string) error {
	p, err := load(path, plugin.InterruptPoints)
	if err != nil {
		return err
	}
	e.rep.check(figGCPause, e.longestStop(ctx, p, []string{"tree", "hash"}), "us", "<=", 1000, "≤ 1 ms")
	e.rep.info(figGCFloor, e.longestStop(ctx, p, []string{abi.ExportListTools, abi.ExportListTools}), "us")
	return nil
}

// longestStop calls exports in a loop, one goroutine each, while forcing
// collections, and returns the longest stop-the-world wait in µs (the
// upper bound of the histogram bucket it fell in).
func (e *env) longestStop(ctx context.Context, p *plugin.Plugin, exports []string) float64 {
	const name = "/sched/pauses/stopping/gc:seconds"
	sample := []metrics.Sample{{Name: name}}
	metrics.Read(sample)
	before := sample[0].Value.Float64Histogram()
	beforeCounts := append([]uint64(nil), before.Counts...)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for _, k := range exports {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				p.Invoke(ctx, k, nil)
			}
		}()
	}
	deadline := time.Now().Add(pick(e.o.Quick, time.Second, 3*time.Second))
	for time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	metrics.Read(sample)
	h := sample[0].Value.Float64Histogram()
	longest := 0.0
	for i, c := range h.Counts {
		if c > beforeCounts[i] {
			longest = h.Buckets[i+1]
		}
	}
	return longest * 1e6
}
