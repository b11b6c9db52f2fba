package server_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// One notification budget per call, whatever the kind; and a plugin
// reports updates only for the resources it declared, never another
// plugin's.
func TestNotificationBudgetAndDeclaredUpdates(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"}, loadSpec{name: "notify_flood", cfg: plugin.Config{Timeout: 60 * time.Second}})
	var progress atomic.Int32
	var mu sync.Mutex
	var updates []string
	own := make(chan struct{}, 1)
	cs := connectVersion(t, srv, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			mu.Lock()
			updates = append(updates, r.Params.URI)
			mu.Unlock()
			if r.Params.URI == "test://flood/own" {
				own <- struct{}{}
			}
		},
	}, "2025-11-25")
	ctx := context.Background()
	for _, uri := range []string{"test://static-text", "test://flood/own"} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	params := &mcp.CallToolParams{Name: "notify_flood", Arguments: map[string]any{}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	select {
	case <-own:
	case <-time.After(10 * time.Second):
		t.Fatal("the update for the plugin's own resource never came")
	}
	if err := cs.Ping(ctx, nil); err != nil { // what was sent has been read
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(updates) != 1 {
		t.Fatalf("updates %v, want only test://flood/own (test://static-text is not the plugin's)", updates)
	}
	if n := progress.Load(); n > 100 {
		t.Fatalf("%d notifications reached the client from one call, over the budget of 100", n+int32(len(updates)))
	}
}
