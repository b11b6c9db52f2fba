//go:build unix

package plugin_test

import (
	"context"
	"os"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

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
