package wasmbin

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// BenchmarkStackBound measures what the interruption points cost call-heavy
// code in plain wazero, and how much of it is the stack bound: each
// iteration runs a kernel of testdata/calls.wat unchanged, rewritten
// without a stack limit, and rewritten with one (as mcpwasm runs guests),
// back to back, and the metrics are the medians of the per-iteration
// ratios to the unchanged module. Run with -benchtime 21x or more: a busy
// machine spreads single runs.
func BenchmarkStackBound(b *testing.B) {
	in := readTestdata(b, "calls.wasm")
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if _, err := rt.NewHostModuleBuilder("m").
		NewFunctionBuilder().WithFunc(func() int32 { return 1 << 20 }).Export("poll").
		NewFunctionBuilder().WithFunc(func() {}).Export("grow").
		NewFunctionBuilder().WithFunc(func() { panic("stack limit") }).Export("stack").
		Instantiate(ctx); err != nil {
		b.Fatal(err)
	}
	opts := InterruptOptions{Module: "m", Name: "poll", GrowFailed: "grow", StackExhausted: "stack", Fuel: 1 << 20}
	variants := [][]byte{in}
	for _, limit := range []int32{0, 4 << 20} {
		opts.StackLimit = limit
		out, err := Instrument(in, opts)
		if err != nil {
			b.Fatal(err)
		}
		variants = append(variants, out)
	}
	var mods []api.Module
	for _, w := range variants {
		c, err := rt.CompileModule(ctx, w)
		if err != nil {
			b.Fatal(err)
		}
		m, err := rt.InstantiateModule(ctx, c, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			b.Fatal(err)
		}
		mods = append(mods, m)
	}
	for _, k := range []string{"tree", "leafloop"} {
		b.Run(k, func(b *testing.B) {
			var fuel, stack []float64
			for b.Loop() {
				var d [3]float64
				for i, m := range mods {
					t := time.Now()
					if _, err := m.ExportedFunction(k).Call(ctx); err != nil {
						b.Fatal(err)
					}
					d[i] = float64(time.Since(t))
				}
				fuel, stack = append(fuel, d[1]/d[0]), append(stack, d[2]/d[0])
			}
			b.ReportMetric(median(fuel), "nolimit/none")
			b.ReportMetric(median(stack), "limit/none")
		})
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
