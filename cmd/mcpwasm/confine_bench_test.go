package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkConfinement: what the second wall costs. The same calls go to
// two servers over stdio, one confined (the default, --confine=auto) and
// one with --confine=off: echo (the per-call floor, where the seccomp
// filter runs on every system call of the request path) and textkit's
// compute kernels on 1.6 MB of text. p50-µs is the median call.
//
//	go test -run '^$' -bench Confinement -count 6 ./cmd/mcpwasm
func BenchmarkConfinement(b *testing.B) {
	textkit, _ := filepath.Abs(filepath.Join("..", "..", "plugins", "textkit", "textkit.wasm"))
	if _, err := os.Stat(textkit); err != nil {
		b.Skip("plugins/textkit/textkit.wasm is not built (scripts/build-plugins.sh)")
	}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog; HTTPServerError and my_var 2024-01-02.\n", 1_600_000/84)
	calls := []struct {
		name, tool string
		args       map[string]any
	}{
		{"echo", "echo_echo", map[string]any{"message": "x"}},
		{"textkit_count", "textkit_count", map[string]any{"text": text}},
		{"textkit_regex_find", "textkit_regex_find", map[string]any{"text": text, "pattern": `(\d{4})-(\d{2})`, "max_matches": 1000}},
		{"textkit_diff", "textkit_diff", map[string]any{"a": text, "b": strings.Replace(text, "lazy", "LAZY", 40)}},
	}
	servers := map[string]*mcp.ClientSession{}
	for _, mode := range []string{"off", "auto"} {
		servers[mode] = benchServer(b, "--confine", mode, "--timeout", "30s", fixture.Path(b, "echo"), textkit)
	}
	ctx := context.Background()
	for _, c := range calls {
		for _, mode := range []string{"off", "auto"} {
			cs := servers[mode]
			b.Run(c.name+"/confine="+mode, func(b *testing.B) {
				call := func() {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
					if err != nil || res.IsError {
						b.Fatalf("%s: %+v, %v", c.tool, res, err)
					}
				}
				call() // loaded and warm
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for range b.N {
					t := time.Now()
					call()
					lat = append(lat, time.Since(t))
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			})
		}
	}
}

// benchServer starts serve over stdio with go-sdk's client.
func benchServer(b *testing.B, args ...string) *mcp.ClientSession {
	b.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--cache-dir", b.TempDir(), "--log-level", "warn"}, args...)...)
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}
