package plugin_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

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
