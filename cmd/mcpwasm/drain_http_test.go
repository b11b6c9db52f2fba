package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// inFlight reads mcpwasm_calls_in_flight from /metrics.
func inFlight(metricsURL string) bool {
	resp, err := http.Get(metricsURL)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "mcpwasm_calls_in_flight "); ok {
			return v != "0"
		}
	}
	return false
}

// TestHTTPSIGTERMAnswersInFlight: SIGTERM over HTTP answers a call the
// server is running (here a 200 ms nap) before the process exits: the
// listener closes, the request already received is not dropped.
func TestHTTPSIGTERMAnswersInFlight(t *testing.T) {
	url, cmd, stderr := httpServeCmd(t, fixture.Path(t, "nap"))
	metrics := strings.TrimSuffix(url, "/mcp") + "/metrics"
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "drain"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for attempt := 0; attempt < 20; attempt++ {
		got := make(chan *mcp.CallToolResult, 1)
		errc := make(chan error, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nap_nap", Arguments: map[string]any{}})
			if err != nil {
				errc <- err
				return
			}
			got <- res
		}()
		seen := false
		for deadline := time.Now().Add(5 * time.Second); !seen && time.Now().Before(deadline); {
			select {
			case <-got: // finished before we saw it running: try again
				deadline = time.Time{}
				continue
			case err := <-errc:
				t.Fatalf("nap: %v\n%s", err, stderr)
			default:
			}
			seen = inFlight(metrics)
		}
		if !seen {
			continue
		}
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case res := <-got:
			if res.IsError || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "rested" {
				t.Fatalf("the call in flight at SIGTERM: %+v", res)
			}
		case err := <-errc:
			t.Fatalf("the call in flight at SIGTERM failed: %v\n%s", err, stderr)
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer after SIGTERM\n%s", stderr)
		}
		cs.Close() // its GET stream would hold the shutdown to its bound
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr)
		}
		return
	}
	t.Fatal("never saw the nap call in flight")
}
