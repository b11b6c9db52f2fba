package plugin

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// BenchmarkCallPhases splits a call of each language's cheapest tool (the
// SDK parity plugins' pixel, the WAT echo's echo) into what a fresh
// instance per call pays, in µs per call: inst-µs, instantiation (memory,
// data segments, an AssemblyScript start function); init-µs, the guest
// runtime's start with a trivial export (mcpwasm_abi_version); call-µs,
// the tool's call, the instance's first; again-µs, the same call again in
// the same instance (what the first call costs beyond it is first-use
// work: lazy initialisation, caches, heap growth; a server never does
// this); close-µs, the instance's disposal. RATIONALE.md, "First calls",
// reads it.
func BenchmarkCallPhases(b *testing.B) {
	for _, name := range []string{"echo", "sdk_c", "sdk_rust", "sdk_as", "sdk_tinygo", "sdk_go"} {
		b.Run(name, func(b *testing.B) {
			rt, err := NewRuntime(RuntimeOptions{CacheDir: "off"})
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close(context.Background())
			data, err := os.ReadFile(fixture.Path(b, name))
			if err != nil {
				b.Fatal(err)
			}
			p, err := rt.Load(context.Background(), Config{Name: name, Wasm: data})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close(context.Background())
			ctx := context.Background()
			code, cerr := p.machineCode(ctx)
			if cerr != nil {
				b.Fatal(cerr)
			}
			tool := "pixel"
			if name == "echo" {
				tool = "echo"
			}
			input := []byte(`{"request":{"name":"` + tool + `","arguments":{}},"context":{}}`)
			_, hasVersion := code.mod.ExportedFunctions()[abi.ExportABIVersion]
			var at [6]time.Time
			var sum [5]time.Duration
			for b.Loop() {
				res, rerr := p.reserve(ctx, ctx)
				if rerr != nil {
					b.Fatal(rerr)
				}
				gio := p.takeGuestIO(ctx)
				at[0] = time.Now()
				inst, ictx, err := p.newInstance(ctx, code, gio.mc, res, nil, &callState{plugin: p}, func(c context.Context) { gio.ctx = c })
				if err != nil {
					b.Fatal(err)
				}
				at[1] = time.Now()
				if hasVersion {
					if _, _, err := inst.call(ictx, abi.ExportABIVersion, nil); err != nil {
						b.Fatal(err)
					}
				}
				at[2] = time.Now()
				for k := range 2 {
					if _, _, err := inst.call(ictx, abi.ExportCallTool, input); err != nil {
						b.Fatal(err)
					}
					at[3+k] = time.Now()
				}
				inst.close()
				at[5] = time.Now()
				res.Release()
				p.ios.Put(gio)
				for k := range sum {
					sum[k] += at[k+1].Sub(at[k])
				}
			}
			for k, unit := range []string{"inst-µs", "init-µs", "call-µs", "again-µs", "close-µs"} {
				b.ReportMetric(float64(sum[k].Nanoseconds())/1e3/float64(b.N), unit)
			}
		})
	}
}
