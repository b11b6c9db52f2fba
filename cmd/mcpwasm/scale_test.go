package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startReplicas starts n stateless replicas of the real binary serving the
// echo and sample fixtures with args (e.g. the shared key), and returns
// their URLs and processes.
func startReplicas(t testing.TB, n int, args ...string) ([]string, []*exec.Cmd) {
	urls := make([]string, n)
	cmds := make([]*exec.Cmd, n)
	for i := range n {
		urls[i], cmds[i], _ = httpServeCmd(t, append([]string{"--stateless"},
			append(args, fixture.Path(t, "echo"), fixture.Path(t, "sample"))...)...)
	}
	return urls, cmds
}

// statelessClient connects a 2026-07-28 client, able to sample, to url.
func statelessClient(t testing.TB, url string, samples *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "scale"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			samples.Add(1)
			return &mcp.CreateMessageResult{Role: "assistant", Model: "lb-model", Content: &mcp.TextContent{Text: "sampled"}}, nil
		},
	}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func writeStateKey(t testing.TB, key string) string {
	kf := filepath.Join(t.TempDir(), "state.key")
	if err := os.WriteFile(kf, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return kf
}

func echoCall(ctx context.Context, cs *mcp.ClientSession, text string) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{"text": text}})
	switch {
	case err != nil:
		return err
	case res.IsError:
		return fmt.Errorf("isError: %+v", res.Content)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"`+text+`"`) {
		return fmt.Errorf("answer %s does not echo %q", b, text)
	}
	return nil
}

// TestScaleOut: three replicas that share only a requestState key, behind a
// round-robin balancer with no affinity. Tool calls spread over all three; a
// sampling round trip whose two halves land on different replicas succeeds
// (and fails without the shared key, so the test can tell); a replica killed
// mid-run loses only the calls it was answering, which the client retries;
// one stopped with SIGTERM loses none. The balancer retries refused and
// reset connections elsewhere (lb_test.go), as real balancers can: closing
// a listener resets the connections the kernel queued for it, unread.
func TestScaleOut(t *testing.T) {
	kf := writeStateKey(t, strings.Repeat("0123456789abcdef", 4))
	urls, cmds := startReplicas(t, 3, "--state-key-file", kf)
	lb, front := newRoundRobin(t, urls...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var samples atomic.Int32
	cs := statelessClient(t, front, &samples)

	for i := range 6 {
		if err := echoCall(ctx, cs, fmt.Sprint("hello ", i)); err != nil {
			t.Fatal(err)
		}
	}
	served := map[int]bool{}
	for _, h := range lb.hops() {
		if h.Method == "tools/call" {
			served[h.Backend] = true
		}
	}
	if len(served) != 3 {
		t.Fatalf("tool calls reached replicas %v, want all three", served)
	}

	t.Run("round trip across replicas", func(t *testing.T) {
		before := len(lb.hops())
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample_sample", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("sampling through the balancer: %+v %v", res, err)
		}
		if sc, _ := res.StructuredContent.(map[string]any); sc["model"] != "lb-model" || samples.Load() != 1 {
			t.Fatalf("guest got %v after %d samples", res.StructuredContent, samples.Load())
		}
		first, second := -1, -1
		for _, h := range lb.hops()[before:] {
			switch {
			case h.Method == "tools/call" && !h.RequestState:
				first = h.Backend
			case h.Method == "tools/call" && h.RequestState:
				second = h.Backend
			}
		}
		if first < 0 || second < 0 || first == second {
			t.Fatalf("the round trip's halves were served by replicas %d and %d; the test needs two different ones", first, second)
		}
	})

	t.Run("without a shared key", func(t *testing.T) {
		alone, _ := startReplicas(t, 2)
		_, front := newRoundRobin(t, alone...)
		var n atomic.Int32
		cs := statelessClient(t, front, &n)
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample_sample", Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), "requestState") {
			t.Fatalf("a round trip across replicas with different keys: %v, want a requestState error", err)
		}
	})

	// Four clients call in a loop; a replica is killed, later another is
	// stopped. A failed call is retried (at most 3 attempts).
	var (
		done     atomic.Int32
		failures atomic.Int32
		wg       sync.WaitGroup
		mu       sync.Mutex
		errs     []string
	)
	const workers, perWorker = 4, 40
	killed, stopped := make(chan struct{}), make(chan struct{})
	var afterKill, afterStop atomic.Int32
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := statelessClient(t, front, &samples)
			for i := range perWorker {
				var err error
				for range 3 {
					if err = echoCall(ctx, cs, fmt.Sprintf("w%d-%d", w, i)); err == nil {
						break
					}
					select {
					case <-stopped:
						afterStop.Add(1)
					case <-killed:
						afterKill.Add(1)
					default:
					}
					failures.Add(1)
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
				}
				if err != nil {
					t.Errorf("call w%d-%d failed 3 times: %v", w, i, err)
					return
				}
				done.Add(1)
			}
		}()
	}
	waitFor := func(n int32) {
		for done.Load() < n && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor(workers * perWorker / 4)
	cmds[1].Process.Kill()
	close(killed)
	waitFor(workers * perWorker / 2)
	cmds[2].Process.Signal(syscall.SIGTERM)
	cmds[2].Wait()
	close(stopped)
	wg.Wait()
	if n := done.Load(); n != workers*perWorker {
		t.Fatalf("%d of %d calls answered", n, workers*perWorker)
	}
	// Failures before the kill are impossible; after it, only the calls in
	// flight on the killed replica (one per client at most). After a
	// graceful stop, none.
	if f, k := failures.Load(), afterKill.Load(); f != k || k > workers || afterStop.Load() != 0 {
		t.Fatalf("%d failed attempts: %d after the kill (at most %d allowed), %d after the graceful stop (none allowed): %q",
			f, k, workers, afterStop.Load(), errs)
	}
	t.Logf("%d calls answered; %d attempts failed on the killed replica and were retried", done.Load(), failures.Load())
}

// BenchmarkScaleOut: echo calls per second through the round-robin
// balancer to 1 and to 3 replicas, 8 clients calling at once. On a 2-core
// machine the replicas share the same cores, so this measures the cost of
// spreading, not the gain of more machines.
//
//	go test -run '^$' -bench ScaleOut ./cmd/mcpwasm
func BenchmarkScaleOut(b *testing.B) {
	kf := writeStateKey(b, strings.Repeat("0123456789abcdef", 4))
	// Every request comes from the balancer's address: without
	// authentication the per-IP rate limit would be the balancer's.
	cfg := unlimitedConfig(b)
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("replicas=%d", n), func(b *testing.B) {
			urls, _ := startReplicas(b, n, "--state-key-file", kf, "--config", cfg)
			lb, front := newRoundRobin(b, urls...)
			lb.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}} // no replica stops here
			var samples atomic.Int32
			clients := make(chan *mcp.ClientSession, 8)
			for range cap(clients) {
				clients <- statelessClient(b, front, &samples)
			}
			echoParallel(b, clients, n) // every replica has loaded its plugins
		})
	}
}

// echoParallel warms the server through warm of the clients (an echo call
// each), then has every client call echo at once for b.N calls in all, and
// reports calls/s.
func echoParallel(b *testing.B, clients chan *mcp.ClientSession, warm int) {
	ctx := context.Background()
	for range warm {
		cs := <-clients
		if err := echoCall(ctx, cs, "warm"); err != nil {
			b.Fatal(err)
		}
		clients <- cs
	}
	b.SetParallelism(max(1, cap(clients)/runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		cs := <-clients
		defer func() { clients <- cs }()
		for pb.Next() {
			if err := echoCall(ctx, cs, "x"); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// unlimitedConfig writes a config with no per-IP rate limit: every request
// of a benchmark comes from one address.
func unlimitedConfig(b *testing.B) string {
	cfg := filepath.Join(b.TempDir(), "mcpwasm.toml")
	if err := os.WriteFile(cfg, []byte("[server.limits]\nrate = -1\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	return cfg
}
