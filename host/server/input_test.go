package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inputClient answers elicitation with {"name": "Alice", "context": "ctx-1"},
// sampling with "Hello there!" and has the root file:///test/root; it counts
// what it was asked.
type inputClient struct{ elicit, sample, roots atomic.Int32 }

func (c *inputClient) options(mrtr bool) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: !mrtr},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.elicit.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice", "context": "ctx-1", "color": "blue"}}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			c.sample.Add(1)
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "Hello there!"}}, nil
		},
		Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{},
			Elicitation: &mcp.ElicitationCapabilities{}, RootsV2: &mcp.RootCapabilities{}},
	}
}

func (c *inputClient) connect(t *testing.T, srv *server.Server, era string, mrtr bool) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, c.options(mrtr))
	cl.AddRoots(&mcp.Root{URI: "file:///test/root", Name: "Test Root"})
	cs, err := cl.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// TestRequestInputOneRound: request_input asks the client for elicitation,
// sampling and roots in one input-required result, under the guest's keys;
// the retry with all three answers completes the call.
func TestRequestInputOneRound(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	cs := (&inputClient{}).connect(t, srv, "2026-07-28", false)
	ctx := context.Background()
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_multiple_inputs", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !first.NeedsInput() || len(first.InputRequests) != 3 || first.RequestState == "" {
		t.Fatalf("want one round with three requests, got %s", servertest.MustJSON(first))
	}
	_, e := first.InputRequests["user_name"].(*mcp.ElicitParams)
	_, r := first.InputRequests["client_roots"].(*mcp.ListRootsParams)
	var s bool
	switch first.InputRequests["greeting"].(type) {
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		s = true
	}
	if !e || !s || !r {
		t.Fatalf("the requests lost their keys or kinds: %s", servertest.MustJSON(first.InputRequests))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_multiple_inputs", Arguments: map[string]any{},
		RequestState: first.RequestState, InputResponses: mcp.InputResponseMap{
			"user_name":    &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}},
			"greeting":     &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "Hi!"}},
			"client_roots": &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///r"}}},
		}})
	if err != nil || res.NeedsInput() || servertest.Text(res) != "name=Alice greeting=Hi! roots=file:///r" {
		t.Fatalf("retry: %s %v", servertest.MustJSON(res), err)
	}
}

// TestRequestInputBothEras: the same tool, through go-sdk's client as is —
// one round trip for 2026-07-28 (the client's multi round-trip answers all
// three), three server-to-client requests for 2025-11-25 — and over
// stateless HTTP for 2026-07-28.
func TestRequestInputBothEras(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	check := func(t *testing.T, c *inputClient, cs *mcp.ClientSession) {
		res := servertest.Call(t, cs, "test_input_required_result_multiple_inputs", map[string]any{})
		if res.IsError || servertest.Text(res) != "name=Alice greeting=Hello there! roots=file:///test/root" {
			t.Fatalf("got %s", servertest.MustJSON(res))
		}
		if c.elicit.Load() != 1 || c.sample.Load() != 1 {
			t.Fatalf("the client was asked %d elicitations and %d samplings, want 1 each", c.elicit.Load(), c.sample.Load())
		}
	}
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			c := &inputClient{}
			check(t, c, c.connect(t, srv, era, true))
		})
	}
	t.Run("stateless-http", func(t *testing.T) {
		hs := httptest.NewServer(httpserve.Handler(srv, httpserve.Options{Stateless: true}))
		defer hs.Close()
		c := &inputClient{}
		cl := mcp.NewClient(&mcp.Implementation{Name: "c"}, c.options(true))
		cl.AddRoots(&mcp.Root{URI: "file:///test/root"})
		cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL},
			&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		check(t, c, cs)
	})
}

// TestPromptInputRequired: prompts/get gets its input the same way: by
// round trip in 2026-07-28, by a server-to-client request before.
func TestPromptInputRequired(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			c := &inputClient{}
			cs := c.connect(t, srv, era, true)
			res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Messages) != 1 || !strings.Contains(servertest.MustJSON(res.Messages[0]), "Use this context: ctx-1") || c.elicit.Load() != 1 {
				t.Fatalf("got %s after %d elicitations", servertest.MustJSON(res), c.elicit.Load())
			}
		})
	}
	t.Run("by-hand", func(t *testing.T) {
		cs := (&inputClient{}).connect(t, srv, "2026-07-28", false)
		ctx := context.Background()
		first, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
		if err != nil || !first.NeedsInput() || first.InputRequests["user_context"] == nil || len(first.Messages) != 0 {
			t.Fatalf("want an input-required result asking user_context, got %s %v", servertest.MustJSON(first), err)
		}
		// The state is bound to the prompt: a tool cannot use it.
		answers := mcp.InputResponseMap{"user_context": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"context": "x"}}}
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_elicitation", Arguments: map[string]any{},
			RequestState: first.RequestState, InputResponses: answers})
		if err == nil || !strings.Contains(err.Error(), `issued for prompt "test_input_required_result_prompt"`) {
			t.Fatalf("a prompt's requestState on a tool: %v", err)
		}
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt",
			RequestState: first.RequestState, InputResponses: answers})
		if err != nil || res.NeedsInput() || !strings.Contains(servertest.MustJSON(res), "Use this context: x") {
			t.Fatalf("retry: %s %v", servertest.MustJSON(res), err)
		}
	})
}

// TestMultiRound: a guest that asks again after its first answer gets a
// second round, whose requestState carries the first answer.
func TestMultiRound(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	cs := (&inputClient{}).connect(t, srv, "2026-07-28", false)
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "test_input_required_result_multi_round", Arguments: map[string]any{}}
	r1, err := cs.CallTool(ctx, params)
	if err != nil || len(r1.InputRequests) != 1 || r1.InputRequests["step1"] == nil {
		t.Fatalf("round 1: %s %v", servertest.MustJSON(r1), err)
	}
	params.RequestState = r1.RequestState
	params.InputResponses = mcp.InputResponseMap{"step1": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bob"}}}
	r2, err := cs.CallTool(ctx, params)
	if err != nil || len(r2.InputRequests) != 1 || r2.InputRequests["step2"] == nil || r2.RequestState == r1.RequestState {
		t.Fatalf("round 2: %s %v", servertest.MustJSON(r2), err)
	}
	params.RequestState = r2.RequestState
	params.InputResponses = mcp.InputResponseMap{"step2": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "green"}}}
	r3, err := cs.CallTool(ctx, params)
	if err != nil || r3.NeedsInput() || servertest.Text(r3) != "Bob likes green" {
		t.Fatalf("round 3: %s %v", servertest.MustJSON(r3), err)
	}
}

// TestMissingCapability: a 2026-07-28 guest that fails after being refused a
// capability the request did not declare answers -32021 with the
// capability in data.requiredCapabilities (400 over HTTP, by go-sdk); a
// legacy client gets the guest's isError result.
func TestMissingCapability(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	t.Run("2026-07-28", func(t *testing.T) {
		cs := connectVersion(t, srv, nil, "2026-07-28")
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_missing_capability", Arguments: map[string]any{}})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapabilities {
			t.Fatalf("want error -32021, got %v", err)
		}
		var data mcp.MissingRequiredClientCapabilityData
		if json.Unmarshal(je.Data, &data) != nil || data.RequiredCapabilities == nil || data.RequiredCapabilities.Sampling == nil {
			t.Fatalf("data.requiredCapabilities: %s", je.Data)
		}
	})
	t.Run("2025-11-25", func(t *testing.T) {
		cs := connectVersion(t, srv, nil, "2025-11-25")
		res := servertest.Call(t, cs, "test_missing_capability", map[string]any{})
		if !res.IsError || !strings.Contains(servertest.Text(res), "does not support sampling") {
			t.Fatalf("got %s", servertest.MustJSON(res))
		}
	})
	t.Run("declared", func(t *testing.T) {
		c := &inputClient{}
		res := servertest.Call(t, c.connect(t, srv, "2026-07-28", true), "test_missing_capability", map[string]any{})
		if res.IsError || servertest.Text(res) != "Sampled: Hello there!" {
			t.Fatalf("got %s", servertest.MustJSON(res))
		}
	})
}

// TestInputOnlyForDeclaredCapabilities: the guest reads the request's
// client capabilities from its context and asks only for what the client
// declared.
func TestInputOnlyForDeclaredCapabilities(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	cs := connectVersion(t, srv, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}}, "2026-07-28")
	res := servertest.Call(t, cs, "test_input_required_result_capabilities", map[string]any{})
	if len(res.InputRequests) != 1 || res.InputRequests["capability_sampling"] == nil {
		t.Fatalf("want only the sampling request, got %s", servertest.MustJSON(res))
	}
}

// TestResourceReadRoundTrip: a 2026-07-28 resources/read of a plugin with a
// grant asks for the client's roots by round trip, and they narrow the
// mounts as they do for tools.
func TestResourceReadRoundTrip(t *testing.T) {
	grant, _ := fsTree(t)
	srv, _ := newFsPluginServer(t, []plugin.Grant{{Path: grant, ReadOnly: true}})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}})
	c.AddRoots(&mcp.Root{URI: "file://" + grant + "/sub"})
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx := context.Background()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://" + grant + "/sub/b.txt"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "inside-b" {
		t.Fatalf("read inside the client's root: %s %v", servertest.MustJSON(rr), err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://" + grant + "/a.txt"}); err == nil {
		t.Fatalf("read outside the client's root (inside the grant) succeeded")
	}
}
