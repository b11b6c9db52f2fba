package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk keeps every subscription (and logs its URI) until the session
// ends, so a session's subscriptions are bounded in number and in URI
// length; re-subscribing costs nothing and unsubscribing frees a place.
func TestSubscriptionsBounded(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	cs := connectVersion(t, srv, nil, "2025-11-25")
	ctx := context.Background()
	sub := func(uri string) error { return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}) }
	uri := func(i int) string { return fmt.Sprintf("test://template/%d/data", i) }
	if err := sub("test://template/" + strings.Repeat("x", 5000) + "/data"); err == nil || !strings.Contains(err.Error(), "long") {
		t.Fatalf("a 5 KB URI: %v, want a refusal saying it is too long", err)
	}
	for i := range 256 {
		if err := sub(uri(i)); err != nil {
			t.Fatalf("subscription %d: %v", i+1, err)
		}
	}
	if err := sub(uri(0)); err != nil {
		t.Fatalf("subscribing again to the same URI: %v", err)
	}
	if err := sub(uri(256)); err == nil || !strings.Contains(err.Error(), "subscriptions") {
		t.Fatalf("subscription 257: %v, want a refusal naming the limit", err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri(3)}); err != nil {
		t.Fatal(err)
	}
	if err := sub(uri(256)); err != nil {
		t.Fatalf("after an unsubscribe: %v", err)
	}
}
