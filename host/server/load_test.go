package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDrainRefusesNewCalls: once Drain began, a new call is answered "the
// server is shutting down" while the call already running finishes and is
// answered (before, Drain admitted new calls, and WaitGroup.Add raced its
// Wait).
func TestDrainRefusesNewCalls(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "sleep", cfg: plugin.Config{Timeout: 2 * time.Second}},
		loadSpec{name: "echo"})
	cs := connect(t, srv, nil)
	running := make(chan *mcp.CallToolResult, 1)
	go func() { running <- servertest.Call(t, cs, "sleep", map[string]any{}) }()
	servertest.WaitInFlight(t, srv, 1) // the sleep call is running (it lasts 2 s)

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	srv.Drain(gone) // stops admissions, returns at once
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Fatalf("a call after Drain began: %v", err)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer dcancel()
	srv.Drain(dctx)
	if dctx.Err() != nil {
		t.Fatal("Drain did not return when the running call ended")
	}
	if res := <-running; category(res) != "timeout" {
		t.Fatalf("the running call: %v %s", res.Meta, servertest.Text(res))
	}
}

// TestWrongArgumentTypeMessage: a wrong argument type names the argument in
// JSON's words (before: `type: <invalid reflect.Value> has type "null",
// want "integer"`).
func TestWrongArgumentTypeMessage(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "typed"})
	cs := connect(t, srv, nil)
	res := servertest.Call(t, cs, "typed", map[string]any{"count": nil})
	if got := servertest.Text(res); !res.IsError || !strings.Contains(got, `argument "count": got null, want integer`) {
		t.Fatalf("got %q", got)
	}
}

// TestAddEntryRecovers: should go-sdk refuse a declaration the registry let
// through, AddEntry returns the refusal instead of panicking, and nothing of
// the entry stays published.
func TestAddEntryRecovers(t *testing.T) {
	ctx := context.Background()
	p := servertest.Plugin(t, servertest.Runtime(t), "echo", plugin.Config{})
	t.Cleanup(func() { p.Close(ctx) })
	good := &registry.Tool{Declared: "good", Plugin: p, Def: &mcp.Tool{Name: "good", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	bad := &registry.Tool{Declared: "bad", Plugin: p, Def: &mcp.Tool{Name: "bad",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"X-O"}}}`)}}
	srv := server.New(registry.New(), server.Options{Features: server.Features{Tools: true}})
	err := srv.AddEntry(&registry.Entry{Plugin: p, Tools: []*registry.Tool{good, bad}})
	if err == nil || !strings.Contains(err.Error(), `plugin "echo"`) || !strings.Contains(err.Error(), "x-mcp-header") {
		t.Fatalf("AddEntry = %v", err)
	}
	srv.Ready()
	lt, err := connect(t, srv, nil).ListTools(ctx, nil)
	if err != nil || len(lt.Tools) != 0 {
		t.Fatalf("tools after a refused entry: %v %v", lt, err)
	}
}

// TestDrainCoversEveryGuestRequest: completions, prompts and resource
// reads run guest code too; once Drain began they are refused like calls
// (before, completion/complete was neither drained nor refused).
func TestDrainCoversEveryGuestRequest(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	cs := connect(t, srv, nil)
	ctx := context.Background()
	complete := func() error {
		_, err := cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
			Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: ""}})
		return err
	}
	if err := complete(); err != nil {
		t.Fatalf("completion before Drain: %v", err)
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	srv.Drain(gone)
	for what, err := range map[string]error{
		"completion/complete": complete(),
		"prompts/get":         second(cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_simple_prompt"})),
		"resources/read":      second(cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})),
	} {
		if err == nil || !strings.Contains(err.Error(), "shutting down") {
			t.Errorf("%s after Drain began: %v", what, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }
