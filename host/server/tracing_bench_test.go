package server_test

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/mcpwasm/mcpwasm/host/tracing/tracingtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkToolsCallTracing is BenchmarkToolsCall's echo round trip
// (2025-11-25, in-memory, a traceparent in _meta) with tracing off, on
// and exporting to a local collector, on with no collector listening
// (connection refused), and on with a collector that accepts and never
// answers. The modes are interleaved, round after round (the machine's
// load drifts), each round b.N calls per mode; it reports each mode's
// median of the rounds' p50s, in µs. Run with -benchtime 2000x.
func BenchmarkToolsCallTracing(b *testing.B) {
	srv, _ := newServer(b, false, loadSpec{name: "echo"})
	cs := connectVersion(b, srv, nil, "2025-11-25")
	stuck := tracingtest.New(b)
	stuck.Block = make(chan struct{})
	b.Cleanup(func() { close(stuck.Block) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	modes := []struct{ name, endpoint string }{
		{"off", ""},
		{"collector", tracingtest.New(b).URL},
		{"refused", refused},
		{"stuck", stuck.URL},
	}
	const rounds = 5
	p50s := make([][]float64, len(modes))
	n := b.N
	b.StopTimer()
	for range rounds {
		for i, m := range modes {
			var p *tracing.Provider
			if m.endpoint != "" {
				if p, err = tracing.Setup(tracing.Config{Endpoint: m.endpoint, Timeout: time.Second, Env: func(string) string { return "" }}); err != nil {
					b.Fatal(err)
				}
			}
			p50s[i] = append(p50s[i], callP50(b, cs, "echo", n))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			p.Shutdown(ctx)
			cancel()
		}
	}
	for i, m := range modes {
		slices.Sort(p50s[i])
		b.ReportMetric(p50s[i][rounds/2], m.name+"-p50-µs")
	}
}

// callP50 makes n calls and returns their median, in µs.
func callP50(b *testing.B, cs *mcp.ClientSession, name string, n int) float64 {
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: name, Arguments: benchArgs,
		Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}
	d := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		d = append(d, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	slices.Sort(d)
	return float64(d[len(d)/2].Nanoseconds()) / 1000
}
