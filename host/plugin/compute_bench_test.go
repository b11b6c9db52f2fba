package plugin_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// BenchmarkCompute runs the compute fixture's kernels with interruption
// points, with wazero's own checks, and with no checks at all (the
// engine's speed). `mcpwasm bench` reports the same as ratios (figure 7).
func BenchmarkCompute(b *testing.B) {
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off"})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	for _, mode := range []struct {
		name string
		m    plugin.InterruptMode
	}{{"points", plugin.InterruptPoints}, {"engine", plugin.InterruptEngine}, {"none", plugin.InterruptNone}} {
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
