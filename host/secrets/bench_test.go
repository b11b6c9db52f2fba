package secrets

import (
	"strings"
	"testing"
)

// BenchmarkScan is the per-call cost of a result scan: a plugin with three
// known secrets (the config's { env = … } values) and its detectors in
// each mode, over an echo-sized result text (the Wasm echo's "hello"
// answer as JSON), a 4 KiB text and a 1 MiB one. Compare with the Wasm
// echo's p50 (docs/performance.md); the budget is 5% of it.
func BenchmarkScan(b *testing.B) {
	known, _ := New([]string{"sk-live-0123456789abcdef", "hunter2-but-longer", "ghp_notreallyatoken_placeholder"})
	texts := map[string]string{
		"echo": `{"content":[{"type":"text","text":"hello"}],"structuredContent":{"echo":"hello"}}`,
		"4KiB": strings.Repeat("Result line with some words, a number 12345 and a path /tmp/x.\n", 64),
		"1MiB": strings.Repeat("Result line with some words, a number 12345 and a path /tmp/x.\n", 16384),
	}
	for _, size := range []string{"echo", "4KiB", "1MiB"} {
		s := texts[size]
		for _, mode := range []Mode{Redact, Off} {
			p := Policy{Known: known, Mode: mode}
			b.Run(size+"/"+string(mode), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					p.Scan(s)
				}
			})
		}
		b.Run(size+"/none", func(b *testing.B) { // no known secrets, detectors off: what a default plugin without secrets pays with secrets = "off"
			p := Policy{Mode: Off}
			for i := 0; i < b.N; i++ {
				p.Scan(s)
			}
		})
	}
}
