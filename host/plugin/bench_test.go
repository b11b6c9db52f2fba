package plugin_test

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// BenchmarkInvoke is the sandbox alone: a fresh instance, one call of the
// minimal echo plugin, and its disposal, with no MCP layer.
func BenchmarkInvoke(b *testing.B) {
	for _, v := range []struct {
		name string
		opts plugin.RuntimeOptions
	}{
		{"pooled-memory", plugin.RuntimeOptions{}},
		{"pooled-memory-no-spare", plugin.RuntimeOptions{NoSpareInstances: true}},
		{"heap-memory", plugin.RuntimeOptions{HeapMemory: true}},
	} {
		b.Run(v.name, func(b *testing.B) {
			v.opts.CacheDir = "off"
			rt, err := plugin.NewRuntime(v.opts)
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
			sp := p.Spares()
			b.ReportMetric(float64(sp.Taken)/float64(b.N), "spare-hits/op")
		})
	}
}
