package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
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

// lockedBuffer is a bytes.Buffer safe for a logger and a test to share.
type lockedBuffer = fixture.Buffer

// A client's inputResponses keys that the server did not ask for are
// logged (at debug) as a count and a few of them, so a request carrying
// thousands of keys does not become a log line of megabytes.
func TestIgnoredInputResponsesLogBounded(t *testing.T) {
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, _ := newServerWith(t, false, server.Options{Name: "test", Logger: logger}, plugin.RuntimeOptions{}, loadSpec{name: "sample"})
	cs := connectVersion(t, srv, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}},
	}, "2026-07-28")
	answers := mcp.InputResponseMap{}
	for i := range 2000 {
		answers[fmt.Sprintf("%s-%04d", strings.Repeat("k", 58), i)] = forgedAnswer("x")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}, InputResponses: answers})
	if err != nil || !res.NeedsInput() {
		t.Fatalf("%+v %v", res, err)
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "ignoring inputResponses") {
			line = l
		}
	}
	if line == "" || len(line) > 4096 || !strings.Contains(line, "count=2000") {
		t.Fatalf("the log line of ignored keys is %d bytes (want at most 4096, with count=2000): %.300s", len(line), line)
	}
}

// modernClientWith connects a 2026-07-28 client sending token, making its
// round trips by hand.
func modernClientWith(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}},
	}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: mcptest.Bearer{Token: token}}},
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
