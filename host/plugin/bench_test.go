//go:build unix

package plugin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// BenchmarkInvoke is the sandbox alone: a fresh instance, one call of the
// minimal echo plugin, and its disposal, with no MCP layer.
func BenchmarkInvoke(b *testing.B) {
	for _, heap := range []bool{false, true} {
		name := "pooled-memory"
		if heap {
			name = "heap-memory"
		}
		b.Run(name, func(b *testing.B) {
			rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off", HeapMemory: heap})
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close(context.Background())
			p := loadIn(b, rt, "echo", plugin.Config{})
			input := []byte(`{"request":{"name":"echo","arguments":{"text":"the quick brown fox"}},"context":{"plugin":"echo"}}`)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, cerr := p.Invoke(ctx, abi.ExportCallTool, input); cerr != nil {
					b.Fatal(cerr)
				}
			}
		})
	}
}

var interruptModes = []struct {
	name string
	m    plugin.InterruptMode
}{{"points", plugin.InterruptPoints}, {"engine", plugin.InterruptEngine}, {"none", plugin.InterruptNone}}

// BenchmarkCompute runs the compute fixture's kernels with interruption
// points, with wazero's own checks, and with no checks at all (the
// engine's speed). `mcpwasm-bench` reports the same as ratios (figure 7).
func BenchmarkCompute(b *testing.B) {
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off"})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	for _, mode := range interruptModes {
		p := loadIn(b, rt, "compute", plugin.Config{Interrupts: mode.m, Timeout: time.Minute})
		for _, k := range []string{"hash", "tree", "leafloop", "tight"} {
			b.Run(k+"/"+mode.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, cerr := p.Invoke(context.Background(), k, nil); cerr != nil {
						b.Fatal(cerr)
					}
				}
			})
		}
	}
}

// BenchmarkComputeRatio prints the figure-7 ratios for the kernels that
// call (tree, a loop-free call tree of 2^25 calls; leafloop, a loop
// calling a leaf 2^25 times): each iteration times one call with
// interruption points and one with no checks, back to back, so both see
// the same machine; the metric is the median of the per-iteration ratios.
// A busy machine spreads single calls; run with -benchtime 15x or more.
func BenchmarkComputeRatio(b *testing.B) {
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off"})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	points := loadIn(b, rt, "compute", plugin.Config{Interrupts: plugin.InterruptPoints, Timeout: time.Minute})
	none := loadIn(b, rt, "compute", plugin.Config{Interrupts: plugin.InterruptNone, Timeout: time.Minute})
	timed := func(b *testing.B, p *plugin.Plugin, k string) float64 {
		t := time.Now()
		if _, cerr := p.Invoke(context.Background(), k, nil); cerr != nil {
			b.Fatal(cerr)
		}
		return float64(time.Since(t))
	}
	for _, k := range []string{"tree", "leafloop"} {
		b.Run(k, func(b *testing.B) {
			var ratios []float64
			for b.Loop() {
				ratios = append(ratios, timed(b, points, k)/timed(b, none, k))
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "points/none")
		})
	}
}

// BenchmarkTextkit runs textkit (TinyGo) on 1.6 MB of text in the three
// modes.
func BenchmarkTextkit(b *testing.B) {
	path := fixture.Plugin(b, "textkit")
	wasm, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off"})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	text := strings.Repeat("The quick brown fox jumps over the lazy dog; HTTPServerError and my_var 2024-01-02.\n", 1_600_000/84)
	calls := map[string]map[string]any{
		"count":      {"text": text},
		"regex_find": {"text": text, "pattern": `(\d{4})-(\d{2})`, "max_matches": 1000},
		"diff":       {"a": text, "b": strings.Replace(text, "lazy", "LAZY", 40)},
	}
	for _, mode := range interruptModes {
		p, err := rt.Load(context.Background(), plugin.Config{Name: "textkit", Source: path, Wasm: wasm,
			Interrupts: mode.m, Timeout: time.Minute, MemoryLimit: 1 << 30})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close(context.Background())
		for _, tool := range []string{"count", "regex_find", "diff"} {
			input, _ := json.Marshal(map[string]any{"request": map[string]any{"name": tool, "arguments": calls[tool]}, "context": map[string]any{}})
			b.Run(tool+"/"+mode.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, cerr := p.Invoke(context.Background(), abi.ExportCallTool, input); cerr != nil {
						b.Fatal(cerr)
					}
				}
			})
		}
	}
}

// BenchmarkColdLoad is the in-process part of a cold start (RATIONALE.md,
// "The load path"): every plugin of $MCPWASM_COLD_PLUGINS (the folder from
// scripts/cold-plugins.sh) loaded over an empty cache and listed as serve
// does (registry.AddRanked, as many at once as cores), up to the moment the
// first tools/list could be answered. The background compiles are not
// included. Beside the time it reports the process's CPU time (user and
// system) per load, which other load on the machine disturbs less. The GC
// target is serve's (400%). For a profile:
//
//	scripts/cold-plugins.sh /tmp/ten && MCPWASM_COLD_PLUGINS=/tmp/ten \
//	  go test -run '^$' -bench ColdLoad -benchtime 3x -cpuprofile cold.prof ./host/plugin
func BenchmarkColdLoad(b *testing.B) {
	dir := os.Getenv("MCPWASM_COLD_PLUGINS")
	if dir == "" {
		b.Skip("set MCPWASM_COLD_PLUGINS to the folder of scripts/cold-plugins.sh")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if len(files) == 0 {
		b.Fatalf("no .wasm in %s", dir)
	}
	wasm := make([][]byte, len(files))
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		wasm[i] = data
	}
	ctx := context.Background()
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		reg := registry.New()
		b.StartTimer()
		cpu0 := processCPU(b)
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		plugins := make([]*plugin.Plugin, len(files))
		for i, f := range files {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				name := strings.TrimSuffix(filepath.Base(f), ".wasm")
				p, err := rt.Load(ctx, plugin.Config{Name: name, Source: f, Wasm: wasm[i]})
				if err != nil {
					b.Error(err)
					return
				}
				plugins[i] = p
				if _, err := reg.AddRanked(ctx, p, registry.AddOptions{}, i); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		cpu += processCPU(b) - cpu0
		if n := len(reg.Tools()); n == 0 {
			b.Fatal("no tools listed")
		}
		for _, p := range plugins {
			if p != nil {
				p.Close(ctx)
			}
		}
		rt.Close(ctx)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// processCPU is the process's user and system CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWarmFirstCall is a standard-Go plugin's first call after a warm
// start (declarations and machine code cached): a Runtime, a load and one
// call per op, what a fresh server process does for its first call.
func BenchmarkWarmFirstCall(b *testing.B) {
	for _, name := range []string{"sdk_go", "echo"} {
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			data, err := os.ReadFile(fixture.Path(b, name))
			if err != nil {
				b.Fatal(err)
			}
			call := []byte(`{"request":{"name":"pixel","arguments":{}},"context":{}}`)
			warm := func() {
				rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: dir})
				if err != nil {
					b.Fatal(err)
				}
				p, err := rt.Load(context.Background(), plugin.Config{Name: name, Wasm: data})
				if err != nil {
					b.Fatal(err)
				}
				if !p.DeclarationsCached() {
					if _, cerr := p.List(context.Background(), abi.ExportListTools, []byte(`{"request":{},"context":{}}`)); cerr != nil {
						b.Fatal(cerr)
					}
					p.KeepDeclarations()
				}
				if _, cerr := p.Invoke(context.Background(), abi.ExportCallTool, call); cerr != nil {
					b.Fatal(cerr)
				}
				p.Close(context.Background())
				rt.Close(context.Background())
			}
			warm()
			warm()
			b.ResetTimer()
			for range b.N {
				warm()
			}
		})
	}
}

// BenchmarkNeighbourEcho is figure 5 without the protocol and the client
// process: the p99 of echo calls in one runtime, alone and while two calls
// of the spin fixture compute into their 1 s limit, in alternating phases
// of the same length. It shows what the sandbox and the CPU scheduler add;
// mcpwasm-bench's figure 5 adds stdio, go-sdk and the client sharing the
// two cores.
func BenchmarkNeighbourEcho(b *testing.B) {
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off"})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	echo := loadIn(b, rt, "echo", plugin.Config{})
	spin := loadIn(b, rt, "spin", plugin.Config{Timeout: time.Second})
	input := []byte(`{"request":{"name":"echo","arguments":{"text":"the quick brown fox"}},"context":{"plugin":"echo"}}`)
	ctx := context.Background()
	const phase = 500 * time.Millisecond
	echoes := func() []time.Duration {
		var lat []time.Duration
		for end := time.Now().Add(phase); time.Now().Before(end); {
			t := time.Now()
			if _, cerr := echo.Invoke(ctx, abi.ExportCallTool, input); cerr != nil {
				b.Fatal(cerr)
			}
			lat = append(lat, time.Since(t))
		}
		return lat
	}
	var alone, noisy []time.Duration
	for b.Loop() {
		alone = append(alone, echoes()...)
		var stop atomic.Bool
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				for !stop.Load() {
					spin.Invoke(ctx, abi.ExportCallTool, []byte(`{}`))
				}
			})
		}
		time.Sleep(20 * time.Millisecond)
		noisy = append(noisy, echoes()...)
		stop.Store(true)
		wg.Wait()
	}
	a, n := p99(alone), p99(noisy)
	b.ReportMetric(float64(a.Microseconds()), "alone-p99-µs")
	b.ReportMetric(float64(n.Microseconds()), "noisy-p99-µs")
	b.ReportMetric(float64(n)/float64(a), "noisy/alone")
}

func p99(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*99/100]
}
