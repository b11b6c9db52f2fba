package main

import (
	"bytes"
	"context"
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
// one with --confine=off, alternately, so that both see the same load on a
// shared machine: echo (the per-call floor, where the seccomp filter runs
// on every system call of the request path) and textkit's compute kernels
// on 1.6 MB of text. Reported: each server's median call (p50-off-µs,
// p50-auto-µs) and their ratio (auto/off, 1.00 = no cost).
//
//	go test -run '^$' -bench Confinement -count 3 ./cmd/mcpwasm
func BenchmarkConfinement(b *testing.B) {
	textkit, _ := filepath.Abs(fixture.Plugin(b, "textkit"))
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
	modes := []string{"off", "auto"}
	servers := map[string]*mcp.ClientSession{}
	for _, mode := range modes {
		servers[mode] = benchServer(b, "--confine", mode, "--timeout", "30s", fixture.Path(b, "echo"), textkit)
	}
	ctx := context.Background()
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			call := func(mode string) time.Duration {
				t := time.Now()
				res, err := servers[mode].CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil || res.IsError {
					b.Fatalf("%s (confine=%s): %+v, %v", c.tool, mode, res, err)
				}
				return time.Since(t)
			}
			p50 := alternateP50(b, modes, call)
			b.ReportMetric(p50["auto"]/p50["off"], "auto/off")
		})
	}
}

// alternateP50 calls each mode once (loaded and warm), then b.N times
// each, alternating which goes first so that neither always follows the
// other; it reports each mode's median latency (p50-MODE-µs) and returns
// the medians.
func alternateP50(b *testing.B, modes []string, call func(mode string) time.Duration) map[string]float64 {
	for _, mode := range modes {
		call(mode)
	}
	lat := map[string][]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		for j := range modes {
			mode := modes[(i+j)%len(modes)]
			lat[mode] = append(lat[mode], call(mode))
		}
	}
	b.StopTimer()
	p50 := map[string]float64{}
	for _, mode := range modes {
		slices.Sort(lat[mode])
		p50[mode] = float64(lat[mode][len(lat[mode])/2].Microseconds())
		b.ReportMetric(p50[mode], "p50-"+mode+"-µs")
	}
	return p50
}

// benchServer starts serve over stdio with go-sdk's client.
func benchServer(b *testing.B, args ...string) *mcp.ClientSession {
	b.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--cache-dir", b.TempDir(), "--log-level", "warn"}, args...)...)
	return connectStdio(b, cmd, &bytes.Buffer{})
}
