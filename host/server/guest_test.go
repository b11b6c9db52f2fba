package server_test

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGuestRequestsAudited: each kind of guest request (a tool call, a
// read, a prompt, a completion) takes the one guest-request path: one
// audit event each, naming its plugin, with the size of the guest's output
// the sandbox recorded through the call's options. Completions were not
// audited before the path was one; a kind whose record is not passed to
// the sandbox reports 0 bytes.
func TestGuestRequestsAudited(t *testing.T) {
	rec := &servertest.Events{}
	srv, _ := newServerWith(t, false, server.Options{Name: "test", Audit: rec.Log()}, plugin.RuntimeOptions{},
		loadSpec{name: "conformance"})
	cs := connect(t, srv, nil)
	ctx := context.Background()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_simple_prompt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
		Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: ""}}); err != nil {
		t.Fatal(err)
	}
	// A completion for a URI a template matches is labelled with the
	// template, as a read is: the URI is the client's (metrics labels).
	if _, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "test://template/123/data"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: "1"}}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]audit.Event{}
	var byURI *audit.Event
	for _, ev := range rec.All() {
		if ev.Kind != audit.KindCall {
			continue
		}
		if ev.Method == "completion/complete" && ev.Tool == "test://template/123/data" {
			byURI = &ev
			continue
		}
		if _, dup := seen[ev.Method]; dup {
			t.Errorf("%s audited twice", ev.Method)
		}
		seen[ev.Method] = ev
	}
	if byURI == nil || byURI.Attrs["template"] != "test://template/{id}/data" {
		t.Errorf("the completion by URI: audit event %+v, want its template in attrs", byURI)
	}
	for _, m := range []string{"tools/call", "resources/read", "prompts/get", "completion/complete"} {
		ev, ok := seen[m]
		switch {
		case !ok:
			t.Errorf("%s: no audit event", m)
		case ev.Plugin != "conformance" || ev.Outcome != server.OutcomeOK || ev.OutputBytes == 0 || ev.Tool == "":
			t.Errorf("%s: audit event %+v", m, ev)
		}
	}
}
