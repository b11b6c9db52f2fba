package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client that never answers roots/list cannot hold a call past its time
// limit: the host's own wait for the roots is bounded by it.
func TestRootsWaitBoundedByCallDeadline(t *testing.T) {
	grant := t.TempDir()
	canon, err := plugin.Canonical(grant)
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newServer(t, false, loadSpec{name: "echo",
		cfg: plugin.Config{Timeout: 300 * time.Millisecond, Grants: []plugin.Grant{{Path: canon, ReadOnly: true}}}})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	never := make(chan struct{})
	c := mcp.NewClient(&mcp.Implementation{Name: "silent"}, nil)
	c.AddRoots(&mcp.Root{URI: "file://" + canon})
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "roots/list" {
				<-never // the client never answers, even when cancelled
			}
			return next(ctx, method, req)
		}
	})
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { close(never); cs.Close(); ss.Wait() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("call held past its 300ms limit by a silent client (gave up after 10s): %v", err)
	}
	if !res.IsError || !strings.Contains(servertest.Text(res), "time limit") {
		t.Fatalf("want an error result naming the time limit, got %q (isError %v)", servertest.Text(res), res.IsError)
	}
}
