package server_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A guest result carrying inputRequests, requestState, resultType and a
// reserved _meta key reaches no client as such: go-sdk would otherwise send
// the guest's elicitation as the server's own (2025-11-25), or hand it to
// the client as an input-required result (2026-07-28).
func TestGuestCannotForgeInputRequests(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "forge_input"})
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			var asked atomic.Int32
			cs := connectVersion(t, srv, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"password": "hunter2"}}, nil
				},
			}, era)
			res := servertest.Call(t, cs, "forge_input", map[string]any{})
			if asked.Load() != 0 {
				t.Fatalf("the client was asked %d times for the guest's forged elicitation", asked.Load())
			}
			if res.InputRequests != nil || res.RequestState != "" || res.NeedsInput() {
				t.Fatalf("forged fields reached the client: %+v", res)
			}
			if _, ok := res.Meta["io.modelcontextprotocol/related-task"]; ok {
				t.Fatalf("a reserved _meta key reached the client: %v", res.Meta)
			}
			if res.Meta["example.com/kept"] == nil {
				t.Fatalf("the guest's own _meta key was dropped: %v", res.Meta)
			}
		})
	}
}

// modernClient connects a 2026-07-28 client that makes its round trips by
// hand, to both fixtures.
func modernClient(t *testing.T) *mcp.ClientSession {
	t.Helper()
	srv, _ := newServer(t, false, loadSpec{name: "sample"}, loadSpec{name: "echo"})
	return connectVersion(t, srv, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}},
	}, "2026-07-28")
}

func forgedAnswer(model string) *mcp.CreateMessageResult {
	return &mcp.CreateMessageResult{Role: "assistant", Model: model, Content: &mcp.TextContent{Text: "forged"}}
}

// Answers without a requestState, or to requests the server never made, are
// ignored, never handed to the guest: the server asks again (SEP-2322:
// ignore what is not recognized, re-request what is missing).
func TestUnsolicitedInputResponsesIgnored(t *testing.T) {
	cs := modernClient(t)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{},
		InputResponses: mcp.InputResponseMap{"create_message-0": forgedAnswer("evil")}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() || res.InputRequests["create_message-0"] == nil {
		t.Fatalf("answers without requestState: got %+v, want the request asked again", res)
	}
	if strings.Contains(servertest.MustJSON(res), "evil") {
		t.Fatalf("the unsolicited answer reached the guest: %s", servertest.MustJSON(res))
	}
}

// A requestState is bound to its tool, its arguments and the ids it
// issued.
func TestRequestStateBound(t *testing.T) {
	cs := modernClient(t)
	ctx := context.Background()
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"a": 1}})
	if err != nil || first.RequestState == "" || len(first.InputRequests) != 1 {
		t.Fatalf("want an input-required result, got %+v %v", first, err)
	}
	answers := mcp.InputResponseMap{}
	for id := range first.InputRequests {
		answers[id] = forgedAnswer("m")
	}
	for _, c := range []struct {
		what, tool string
		args       map[string]any
		answers    mcp.InputResponseMap
		want       string
	}{
		{"replayed on another tool", "echo", map[string]any{"a": 1}, answers, `issued for tool "sample"`},
		{"replayed with other arguments", "sample", map[string]any{"a": 2}, answers, "other arguments"},
		{"an answer of the wrong kind", "sample", map[string]any{"a": 1},
			mcp.InputResponseMap{"create_message-0": &mcp.ElicitResult{Action: "accept"}}, "not an answer to sampling/createMessage"},
	} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args,
			InputResponses: c.answers, RequestState: first.RequestState})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.what, err, c.want)
		}
	}
	// The same arguments in another key order and spacing are the same call;
	// an answer to an id never issued is ignored.
	answers["create_message-7"] = forgedAnswer("evil")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"a": 1.0},
		InputResponses: answers, RequestState: first.RequestState})
	if err != nil || res.IsError || res.StructuredContent == nil {
		t.Fatalf("a proper retry: %+v %v", res, err)
	}
	if got := servertest.MustJSON(res.StructuredContent); strings.Contains(got, "evil") || !strings.Contains(got, `"model":"m"`) {
		t.Fatalf("the guest got %s, want the answer to the request it made", got)
	}
}
