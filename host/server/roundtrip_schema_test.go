package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An accepted elicitation's content must match the schema the guest asked
// with, in 2026-07-28 as in 2025-11-25 (where go-sdk checks it): a client
// answering {"name": 42} to a string field does not hand the guest a
// number; the guest gets the same error as in the older era, and a
// matching answer still reaches it.
func TestElicitationAnswerMatchesSchema(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	cs := connectVersion(t, srv, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
	}, "2026-07-28")
	ctx := context.Background()
	const tool = "test_input_required_result_elicitation"
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil || first.InputRequests["user_name"] == nil {
		t.Fatalf("want an input-required result asking user_name, got %+v %v", first, err)
	}
	retry := func(content map[string]any) *mcp.CallToolResult {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}, RequestState: first.RequestState,
			InputResponses: mcp.InputResponseMap{"user_name": &mcp.ElicitResult{Action: "accept", Content: content}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := retry(map[string]any{"name": 42}); !res.IsError || !strings.Contains(servertest.Text(res), "does not match requested schema") {
		t.Fatalf("an answer against the schema: %s, want the guest told it does not match", servertest.MustJSON(res))
	}
	if res := retry(map[string]any{}); !res.IsError || !strings.Contains(servertest.Text(res), "does not match requested schema") {
		t.Fatalf("an answer without a required field: %s", servertest.MustJSON(res))
	}
	if res := retry(map[string]any{"name": "Ada"}); res.IsError || servertest.Text(res) != "Hello, Ada!" {
		t.Fatalf("a matching answer: %s", servertest.MustJSON(res))
	}
}
