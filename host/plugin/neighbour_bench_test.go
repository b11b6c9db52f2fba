package plugin_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// BenchmarkNeighbourEcho is figure 5 without the protocol and the client
// process: the p99 of echo calls in one runtime, alone and while two calls
// of the spin fixture compute into their 1 s limit, in alternating phases
// of the same length. It shows what the sandbox and the CPU scheduler add;
// mcpwasm-bench's figure 5 adds stdio, go-sdk and the client sharing the
// two cores.
func BenchmarkNeighbourEcho(b *testing.B) {
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off"})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	echo := loadIn(b, rt, "echo", plugin.Config{})
	spin := loadIn(b, rt, "spin", plugin.Config{Timeout: time.Second})
	input := []byte(`{"request":{"name":"echo","arguments":{"text":"the quick brown fox"}},"context":{"plugin":"echo"}}`)
	ctx := context.Background()
	const phase = 500 * time.Millisecond
	echoes := func() []time.Duration {
		var lat []time.Duration
		for end := time.Now().Add(phase); time.Now().Before(end); {
			t := time.Now()
			if _, cerr := echo.Invoke(ctx, abi.ExportCallTool, input); cerr != nil {
				b.Fatal(cerr)
			}
			lat = append(lat, time.Since(t))
		}
		return lat
	}
	var alone, noisy []time.Duration
	for b.Loop() {
		alone = append(alone, echoes()...)
		var stop atomic.Bool
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				for !stop.Load() {
					spin.Invoke(ctx, abi.ExportCallTool, []byte(`{}`))
				}
			})
		}
		time.Sleep(20 * time.Millisecond)
		noisy = append(noisy, echoes()...)
		stop.Store(true)
		wg.Wait()
	}
	a, n := p99(alone), p99(noisy)
	b.ReportMetric(float64(a.Microseconds()), "alone-p99-µs")
	b.ReportMetric(float64(n.Microseconds()), "noisy-p99-µs")
	b.ReportMetric(float64(n)/float64(a), "noisy/alone")
}

func p99(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*99/100]
}
