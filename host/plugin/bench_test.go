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
