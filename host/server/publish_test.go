package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResourcesPromptsCompletion drives the conformance fixture plugin
// (testdata/conformance) through every resource, prompt and completion
// export with go-sdk's client, in both protocol eras.
func TestResourcesPromptsCompletion(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			cs := connectVersion(t, srv, nil, era)
			ctx := context.Background()

			lr, err := cs.ListResources(ctx, nil)
			// three of the suite's, the MCP App (extras.go), and the two
			// files of the fixture's skill (skills.go)
			if err != nil || len(lr.Resources) != 6 {
				t.Fatalf("resources/list: %v %v", lr, err)
			}
			lt, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil || len(lt.ResourceTemplates) != 2 || lt.ResourceTemplates[1].URITemplate != "test://template/{id}/data" {
				t.Fatalf("resources/templates/list: %v %v", lt, err)
			}
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
			if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text == "" || rr.Contents[0].MIMEType == "" {
				t.Fatalf("read static-text: %v %v", rr, err)
			}
			rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"})
			if err != nil || len(rr.Contents[0].Blob) == 0 {
				t.Fatalf("read static-binary: %v %v", rr, err)
			}
			rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/123/data"})
			if err != nil || !strings.Contains(rr.Contents[0].Text, "123") {
				t.Fatalf("read template: %v %v", rr, err)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://nope"}); err == nil {
				t.Fatal("reading an unknown resource must be a JSON-RPC error")
			}

			lp, err := cs.ListPrompts(ctx, nil)
			if err != nil || len(lp.Prompts) != 5 { // four of the suite's, and test_input_required_result_prompt
				t.Fatalf("prompts/list: %v %v", lp, err)
			}
			gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments",
				Arguments: map[string]string{"arg1": "alpha", "arg2": "beta"}})
			if err != nil || !strings.Contains(servertest.MustJSON(gp.Messages), "alpha") || !strings.Contains(servertest.MustJSON(gp.Messages), "beta") {
				t.Fatalf("prompts/get: %v %v", gp, err)
			}
			gp, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_image"})
			if err != nil || !strings.Contains(servertest.MustJSON(gp.Messages), `"image"`) {
				t.Fatalf("prompts/get image: %v %v", gp, err)
			}

			cr, err := cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
				Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: ""}})
			if err != nil || cr.Completion.Values == nil {
				t.Fatalf("completion/complete: %v %v", cr, err)
			}
		})
	}
}

// TestElicitation: create_elicitation reaches the client in both eras.
func TestElicitation(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			asked := 0
			cs := connectVersion(t, srv, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked++
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
				},
			}, era)
			res := servertest.Call(t, cs, "test_elicitation", map[string]any{"message": "who are you?"})
			if res.IsError || !strings.Contains(servertest.Text(res), "ada@example.com") || asked != 1 {
				t.Fatalf("elicitation: asked %d, %s", asked, servertest.Text(res))
			}
		})
	}
}

func TestSubscribe(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	cs := connectVersion(t, srv, nil, "2025-11-25")
	ctx := context.Background()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://nope"}); err == nil {
		t.Fatal("subscribing to an unknown resource must fail")
	}
}

// TestListRootsAndForeignUpdateDropped: list_roots returns the client's
// roots; roots_update's notify_resource_updated names test://static-text,
// which the conformance plugin declared, not roots_update, so no client
// hears of it (TestNotificationBudgetAndDeclaredUpdates delivers a
// plugin's own update).
func TestListRootsAndForeignUpdateDropped(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"}, loadSpec{name: "roots_update"})
	updated := make(chan string, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///home/ada/project", Name: "project"})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://static-text"}); err != nil {
		t.Fatal(err)
	}
	res := servertest.Call(t, cs, "roots_update", map[string]any{})
	if res.IsError || !strings.Contains(servertest.MustJSON(res.StructuredContent), "file:///home/ada/project") {
		t.Fatalf("list_roots gave the guest %s", servertest.MustJSON(res.StructuredContent))
	}
	if err := cs.Ping(context.Background(), nil); err != nil { // what was sent has been read
		t.Fatal(err)
	}
	select {
	case uri := <-updated:
		t.Fatalf("an update for another plugin's resource reached the client: %q", uri)
	default:
	}
}

// TestURLElicitationCompleted: notify_url_elicitation_completed, the
// hyper-mcp v2 host function, loads and reaches the client as
// notifications/elicitation/complete.
func TestURLElicitationCompleted(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "url_elicit_done"})
	done := make(chan string, 1)
	cs := connectVersion(t, srv, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			done <- req.Params.ElicitationID
		},
	}, "2025-11-25")
	if res := servertest.Call(t, cs, "url_elicit_done", map[string]any{}); res.IsError || servertest.Text(res) != "done" {
		t.Fatalf("url_elicit_done: %s", servertest.MustJSON(res))
	}
	select {
	case id := <-done:
		if id != "el-42" {
			t.Fatalf("elicitation/complete for %q, want el-42", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/elicitation/complete")
	}
}

// TestTemplatesOnlyPlugin: a plugin that offers nothing but a resource
// template loads and serves it.
func TestTemplatesOnlyPlugin(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "templates_only"})
	cs := connectVersion(t, srv, nil, "2025-11-25")
	ctx := context.Background()
	lt, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(lt.ResourceTemplates) != 1 || lt.ResourceTemplates[0].URITemplate != "tpl://notes/{id}" {
		t.Fatalf("resources/templates/list: %v %s", err, servertest.MustJSON(lt))
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "tpl://notes/1"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "note" {
		t.Fatalf("read tpl://notes/1: %v %s", err, servertest.MustJSON(rr))
	}
}

// TestPublishRemoveWithdrawsEveryKind: a plugin removed from the registry
// and published so is withdrawn from every list — tools, resources,
// resource templates and prompts (declKinds) — and another plugin's stay.
func TestPublishRemoveWithdrawsEveryKind(t *testing.T) {
	srv, reg := newServer(t, false, loadSpec{name: "conformance"}, loadSpec{name: "echo"})
	before, _ := allPages(t, connect(t, srv, nil))
	for _, list := range []string{"tools", "resources", "templates", "prompts"} {
		if len(before[list]) == 0 {
			t.Fatalf("conformance serves no %s: cannot tell", list)
		}
	}
	conf, ok := reg.Lookup("test_simple_text")
	if !ok {
		t.Fatal("test_simple_text not served")
	}
	if refused := srv.Publish(reg.Remove(conf.Plugin)); len(refused) > 0 {
		t.Fatal(refused[0].Err)
	}
	after, _ := allPages(t, connect(t, srv, nil))
	for _, list := range []string{"resources", "templates", "prompts"} {
		if len(after[list]) != 0 {
			t.Errorf("%s still listed after the plugin was removed: %v", list, after[list])
		}
	}
	if len(after["tools"]) != 1 || after["tools"][0] != "echo" {
		t.Errorf("tools after removing conformance: %v, want [echo]", after["tools"])
	}
}

// AddEntry is the backstop behind the registry's load-time check: should
// go-sdk refuse one declaration (it panics), the refusal is returned and
// nothing of the entry stays published — not the tool before it either —
// while what was served before stays.
func TestAddEntryRefusalPublishesNothing(t *testing.T) {
	srv, reg := newServer(t, false, loadSpec{name: "echo"})
	echo, ok := reg.Lookup("echo")
	if !ok {
		t.Fatal("echo not served")
	}
	e := &registry.Entry{Plugin: echo.Plugin, Tools: []*registry.Tool{
		{Def: &mcp.Tool{Name: "fine", InputSchema: map[string]any{"type": "object"}}, Plugin: echo.Plugin},
		{Def: &mcp.Tool{Name: "refused", InputSchema: map[string]any{"type": "string"}}, Plugin: echo.Plugin},
	}}
	if err := srv.AddEntry(e); err == nil || !strings.Contains(err.Error(), "go-sdk refused a declaration") {
		t.Fatalf("AddEntry: %v", err)
	}
	got, _ := allPages(t, connect(t, srv, nil))
	if len(got["tools"]) != 1 || got["tools"][0] != "echo" {
		t.Fatalf("tools after a refused entry: %v, want [echo]", got["tools"])
	}
}

// echoVersions returns a runtime and a function loading a new version of
// the echo fixture, named svc, each time it is called, as a hot reload does.
func echoVersions(t *testing.T) (*plugin.Runtime, func() *plugin.Plugin) {
	t.Helper()
	rt := servertest.Runtime(t)
	return rt, func() *plugin.Plugin { return servertest.Plugin(t, rt, "echo", plugin.Config{Name: "svc"}) }
}

// TestRetireClosesReplaced: replacing a plugin again and again (Replace,
// Swap, Retire, as a hot reload does) closes every replaced version once
// its calls are done: a retired version cannot start a call (Close took
// all its slots) and the guest memory charged to the budget does not grow
// per reload. The tool keeps answering throughout.
func TestRetireClosesReplaced(t *testing.T) {
	ctx := context.Background()
	rt, load := echoVersions(t)
	cur := load()
	srv, reg := servertest.Serve(t, server.Options{Features: server.Features{Tools: true}}, cur)
	cs := connect(t, srv, nil)
	servertest.Call(t, cs, "echo", map[string]any{"text": "hi"})
	base := rt.MemoryStats()

	for i := 0; i < 3; i++ {
		next := load()
		e, err := registry.Read(ctx, next, registry.AddOptions{Unprefixed: true})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := reg.Replace(cur, e, registry.AddOptions{Unprefixed: true})
		if err != nil {
			t.Fatal(err)
		}
		if refused := srv.Publish(ch); len(refused) > 0 {
			t.Fatalf("swap refused: %v", refused[0].Err)
		}
		select {
		case <-srv.Retire(cur):
		case <-time.After(time.Minute):
			t.Fatalf("reload %d: the replaced plugin was not closed within a minute", i)
		}
		// A closed plugin holds all its slots: a call cannot start.
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		_, cerr := cur.Invoke(short, abi.ExportListTools, []byte(`{}`))
		cancel()
		if cerr == nil {
			t.Fatalf("reload %d: the retired plugin still runs", i)
		}
		cur = next
		if res := servertest.Call(t, cs, "echo", map[string]any{"text": "hi"}); res.IsError {
			t.Fatalf("reload %d: echo failed after the swap", i)
		}
	}
	if got := rt.MemoryStats(); got.Live > base.Live || got.Committed > base.Committed {
		t.Fatalf("after 3 reloads: %d memories live, %d bytes committed; after the first call: %d, %d",
			got.Live, got.Committed, base.Live, base.Committed)
	}
	t.Logf("memories live: %d -> %d after 3 reloads (%d -> %d bytes)", base.Live, rt.MemoryStats().Live, base.Committed, rt.MemoryStats().Committed)
}
