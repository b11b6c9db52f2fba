package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernClientWith connects a 2026-07-28 client sending token, making its
// round trips by hand.
func modernClientWith(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}},
	}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: servertest.WithToken{Token: token}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A requestState is bound to the principal it was issued to: another
// token's holder cannot complete the call with it (the answers it carries
// are the first principal's), while its own principal can.
func TestRequestStateBoundToPrincipal(t *testing.T) {
	toks := servertest.StaticTokens(t, "alice 0123456789abcdef0123\nbob fedcba9876543210fedc\n")
	srv, _ := newServer(t, false, loadSpec{name: "sample"})
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Stateless: true, Access: httpserve.AccessOptions{Verifier: toks.Verify}}) + "/mcp"
	alice := modernClientWith(t, url, "0123456789abcdef0123")
	bob := modernClientWith(t, url, "fedcba9876543210fedc")
	ctx := context.Background()
	first, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}})
	if err != nil || first.RequestState == "" {
		t.Fatalf("want an input-required result, got %+v %v", first, err)
	}
	answers := mcp.InputResponseMap{}
	for id := range first.InputRequests {
		answers[id] = forgedAnswer("m")
	}
	retry := &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}, InputResponses: answers, RequestState: first.RequestState}
	if _, err := bob.CallTool(ctx, retry); err == nil || !strings.Contains(err.Error(), "another principal") {
		t.Fatalf("bob replaying alice's requestState: %v, want an error saying it was issued to another principal", err)
	}
	res, err := alice.CallTool(ctx, retry)
	if err != nil || res.NeedsInput() || res.IsError {
		t.Fatalf("alice's own retry: %+v %v", res, err)
	}
}
