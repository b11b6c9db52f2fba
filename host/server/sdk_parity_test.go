package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/eventually"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// parityLangs are the languages whose SDK builds the parity plugin
// (testdata/SDK-PARITY.md): testdata/wasm/sdk_<lang>.wasm.
var parityLangs = []string{"rust", "go", "tinygo", "as", "c"}

// TestSDKParity drives the parity plugin each guest SDK builds, through the
// real server and go-sdk's client: every tool, resource, template, prompt and
// completion of ABI v1, and every host function. A missing build fails.
func TestSDKParity(t *testing.T) {
	for _, lang := range parityLangs {
		t.Run(lang, func(t *testing.T) {
			name := "sdk_" + lang
			srv, _ := newServer(t, false, loadSpec{name: name,
				cfg: plugin.Config{GuestConfig: map[string]string{"greeting": "hi"}}})
			p := &parityClient{}
			cs := p.connect(t, srv, "2025-11-25", true)
			t.Run("tools", func(t *testing.T) { parityTools(t, cs, p, lang) })
			t.Run("resources", func(t *testing.T) { parityResources(t, cs, lang) })
			t.Run("prompts", func(t *testing.T) { parityPrompts(t, cs) })
			t.Run("completion", func(t *testing.T) { parityCompletion(t, cs) })
			t.Run("host-functions", func(t *testing.T) { parityHostFunctions(t, cs, p) })
			t.Run("2026-07-28", func(t *testing.T) {
				// Sampling, elicitation and roots by multi round-trip and replay.
				cs := (&parityClient{}).connect(t, srv, "2026-07-28", true)
				parityRequests(t, cs)
			})
			t.Run("no-capabilities", func(t *testing.T) {
				cs := (&parityClient{}).connect(t, srv, "2025-11-25", false)
				for tool, want := range map[string]string{"ask": "sampling unavailable: ",
					"elicit": "elicitation unavailable: "} {
					if r := servertest.Call(t, cs, tool, map[string]any{}); !r.IsError || !strings.HasPrefix(servertest.Text(r), want) {
						t.Errorf("%s without the capability: isError %v, %q; want isError and %q…", tool, r.IsError, servertest.Text(r), want)
					}
				}
			})
		})
	}
}

// parityClient is a client with every capability, recording what the
// server sends it.
type parityClient struct {
	recorder          // progress and log notifications, under recorder.mu
	events   []string // "updated <uri>", "tools", "resources", "prompts", "elicitation <id>"
	sampled  int
}

func (p *parityClient) record(e string) { p.mu.Lock(); p.events = append(p.events, e); p.mu.Unlock() }

// connect connects to srv in protocol version; with capable, the client
// answers sampling and elicitation and has one root.
func (p *parityClient) connect(t *testing.T, srv *server.Server, version string, capable bool) *mcp.ClientSession {
	t.Helper()
	opts := p.recorder.options()
	opts.ResourceUpdatedHandler = func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		p.record("updated " + r.Params.URI)
	}
	opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { p.record("tools") }
	opts.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { p.record("resources") }
	opts.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { p.record("prompts") }
	opts.ElicitationCompleteHandler = func(_ context.Context, r *mcp.ElicitationCompleteNotificationRequest) {
		p.record("elicitation " + r.Params.ElicitationID)
	}
	if capable {
		opts.CreateMessageHandler = func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			p.mu.Lock()
			p.sampled++
			p.mu.Unlock()
			if len(r.Params.Messages) != 1 || servertest.MustJSON(r.Params.Messages[0].Content) != `{"type":"text","text":"ping"}` || r.Params.MaxTokens != 16 {
				return nil, &jsonError{"unexpected sampling request " + servertest.MustJSON(r.Params)}
			}
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "pong"}}, nil
		}
		opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if r.Params.Message != "Your name?" {
				return nil, &jsonError{"unexpected elicitation " + servertest.MustJSON(r.Params)}
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "parity-client"}, opts)
	if capable {
		c.AddRoots(&mcp.Root{URI: "file:///home/ada/project", Name: "project"},
			&mcp.Root{URI: "file:///srv/data", Name: "data"})
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

type jsonError struct{ msg string }

func (e *jsonError) Error() string { return e.msg }

// waitFor polls cond (under p.mu) until it holds: notifications race results.
func (p *parityClient) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if eventually.Within(10*time.Second, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return cond()
	}) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t.Fatalf("%s did not arrive: progress %s, logs %s, events %v", what, servertest.MustJSON(p.progress), servertest.MustJSON(p.logs), p.events)
}

func parityTools(t *testing.T, cs *mcp.ClientSession, p *parityClient, lang string) {
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tl := range lt.Tools {
		got[tl.Name] = tl
	}
	for _, n := range []string{"greet", "report", "pixel", "ask", "elicit", "roots", "touch", "changed", "crash"} {
		if got[n] == nil {
			t.Errorf("tools/list lacks %q", n)
		}
	}
	if len(got) != 9 {
		t.Errorf("tools/list has %d tools, want 9: %s", len(got), servertest.MustJSON(lt.Tools))
	}
	if g := got["greet"]; g != nil && g.Title != "Greeter" {
		t.Errorf("greet title %q, want Greeter", g.Title)
	}
	if px := got["pixel"]; px != nil && (px.Annotations == nil || !px.Annotations.ReadOnlyHint) {
		t.Errorf("pixel annotations %s, want readOnlyHint", servertest.MustJSON(px.Annotations))
	}

	if r := servertest.Call(t, cs, "greet", map[string]any{"name": "Ada"}); r.IsError || servertest.Text(r) != "Hello, Ada!" {
		t.Errorf("greet Ada: isError %v, %q", r.IsError, servertest.Text(r))
	}
	if r := servertest.Call(t, cs, "greet", map[string]any{}); !r.IsError || servertest.Text(r) != "name is required" || category(r) != "" {
		t.Errorf("greet without a name: isError %v, %q, category %q; want the handler's error as an isError result",
			r.IsError, servertest.Text(r), category(r))
	}

	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "report", Arguments: map[string]any{"steps": 3}}
	params.SetProgressToken("tok")
	r, err := cs.CallTool(ctx, params)
	if err != nil || r.IsError {
		t.Fatalf("report: %v %s", err, servertest.MustJSON(r))
	}
	want := map[string]any{"lang": lang, "steps": 3.0, "plugin": "sdk_" + lang, "greeting": "hi"}
	if sc, _ := r.StructuredContent.(map[string]any); !reflect.DeepEqual(sc, want) {
		t.Errorf("report structuredContent %s, want %s", servertest.MustJSON(r.StructuredContent), servertest.MustJSON(want))
	}
	var mirrored map[string]any
	if err := json.Unmarshal([]byte(servertest.Text(r)), &mirrored); err != nil || !reflect.DeepEqual(mirrored, want) {
		t.Errorf("report text %q does not hold the same JSON as structuredContent", servertest.Text(r))
	}
	p.waitFor(t, "3 progress and 1 log notification", func() bool { return len(p.progress) == 3 && len(p.logs) == 1 })
	for i, pr := range p.progress {
		if pr.ProgressToken != "tok" || pr.Progress != float64(i+1) || pr.Total != 3 || pr.Message != "step "+string(rune('1'+i)) {
			t.Errorf("progress %d = %s", i, servertest.MustJSON(pr))
		}
	}
	if l := p.logs[0]; l.Level != "info" || l.Logger != "parity" || servertest.MustJSON(l.Data) != `{"steps":3}` {
		t.Errorf("log = %s", servertest.MustJSON(l))
	}

	r = servertest.Call(t, cs, "pixel", map[string]any{})
	if img, ok := onlyContent(r).(*mcp.ImageContent); r.IsError || !ok || !bytes.Equal(img.Data, []byte{0x89, 'P', 'N', 'G'}) || img.MIMEType != "image/png" {
		t.Errorf("pixel: %s", servertest.MustJSON(r))
	}

	r = servertest.Call(t, cs, "crash", map[string]any{})
	if !r.IsError {
		t.Errorf("crash answered success: %s", servertest.MustJSON(r))
	}
	if (lang == "rust" || lang == "go") && !strings.Contains(servertest.Text(r), "crash on purpose") {
		t.Errorf("crash: %q does not carry the panic message", servertest.Text(r))
	}
	if !strings.Contains(servertest.Text(r), "crash on purpose") && !strings.Contains(servertest.Text(r), "panic") {
		t.Errorf("crash: %q says neither the message nor that the tool panicked", servertest.Text(r))
	}
}

func onlyContent(r *mcp.CallToolResult) mcp.Content {
	if len(r.Content) != 1 {
		return nil
	}
	return r.Content[0]
}

// parityRequests checks the tools that ask the client for something.
func parityRequests(t *testing.T, cs *mcp.ClientSession) {
	if r := servertest.Call(t, cs, "ask", map[string]any{}); r.IsError || servertest.Text(r) != "model said: pong" {
		t.Errorf("ask: isError %v, %q", r.IsError, servertest.Text(r))
	}
	if r := servertest.Call(t, cs, "elicit", map[string]any{}); r.IsError || servertest.Text(r) != "accept Ada" {
		t.Errorf("elicit: isError %v, %q", r.IsError, servertest.Text(r))
	}
	if r := servertest.Call(t, cs, "roots", map[string]any{}); r.IsError || servertest.Text(r) != "file:///home/ada/project,file:///srv/data" {
		t.Errorf("roots: isError %v, %q", r.IsError, servertest.Text(r))
	}
}

func parityHostFunctions(t *testing.T, cs *mcp.ClientSession, p *parityClient) {
	parityRequests(t, cs)
	p.mu.Lock()
	sampled := p.sampled
	p.mu.Unlock()
	if sampled != 1 {
		t.Errorf("the client was sampled %d times for one ask, want 1", sampled)
	}

	ctx := context.Background()
	p.mu.Lock()
	before := len(p.events)
	p.mu.Unlock()
	if before != 0 {
		t.Fatalf("events before the guest asked for any: %v", p.events)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "parity://about"}); err != nil {
		t.Fatal(err)
	}
	if r := servertest.Call(t, cs, "touch", map[string]any{"uri": "parity://about"}); r.IsError || servertest.Text(r) != "touched parity://about" {
		t.Errorf("touch: isError %v, %q", r.IsError, servertest.Text(r))
	}
	if r := servertest.Call(t, cs, "changed", map[string]any{}); r.IsError || servertest.Text(r) != "changed" {
		t.Errorf("changed: isError %v, %q", r.IsError, servertest.Text(r))
	}
	has := func(e string) bool {
		for _, x := range p.events {
			if x == e {
				return true
			}
		}
		return false
	}
	for _, e := range []string{"updated parity://about", "tools", "resources", "prompts", "elicitation el-parity"} {
		p.waitFor(t, e, func() bool { return has(e) })
	}
	// The lists were read again after the change and are still whole.
	if lt, err := cs.ListTools(ctx, nil); err != nil || len(lt.Tools) != 9 {
		t.Errorf("tools/list after list_changed: %v, %v", err, lt)
	}
}

func parityResources(t *testing.T, cs *mcp.ClientSession, lang string) {
	ctx := context.Background()
	lr, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range lr.Resources {
		got[r.URI] = r.Name + " " + r.MIMEType
	}
	want := map[string]string{"parity://about": "about text/plain", "parity://blob": "blob application/octet-stream"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resources/list = %v, want %v", got, want)
	}
	lt, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(lt.ResourceTemplates) != 1 {
		t.Fatalf("resources/templates/list: %v %s", err, servertest.MustJSON(lt))
	}
	if rt := lt.ResourceTemplates[0]; rt.URITemplate != "parity://items/{id}" || rt.Name != "item" || rt.MIMEType != "application/json" {
		t.Errorf("template = %s", servertest.MustJSON(rt))
	}

	read := func(uri string) *mcp.ResourceContents {
		t.Helper()
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(rr.Contents) != 1 {
			t.Fatalf("read %s: %v %s", uri, err, servertest.MustJSON(rr))
		}
		return rr.Contents[0]
	}
	if c := read("parity://about"); c.Text != "parity plugin in "+lang || c.URI != "parity://about" {
		t.Errorf("about = %s", servertest.MustJSON(c))
	}
	if c := read("parity://blob"); !bytes.Equal(c.Blob, []byte{0, 1, 2, 3}) || c.Text != "" {
		t.Errorf("blob = %s", servertest.MustJSON(c))
	}
	if c := read("parity://items/2"); c.Text != `{"id":"2"}` || c.URI != "parity://items/2" {
		t.Errorf("items/2 = %s", servertest.MustJSON(c))
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "parity://items/9"})
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "not found") {
		t.Errorf("reading items/9: %v, want a resource-not-found error", err)
	}
}

func parityPrompts(t *testing.T, cs *mcp.ClientSession) {
	ctx := context.Background()
	lp, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(lp.Prompts) != 1 {
		t.Fatalf("prompts/list: %v %s", err, servertest.MustJSON(lp))
	}
	pr := lp.Prompts[0]
	if pr.Name != "review" || pr.Description != "Review some code" || len(pr.Arguments) != 2 ||
		pr.Arguments[0].Name != "code" || !pr.Arguments[0].Required ||
		pr.Arguments[1].Name != "language" || pr.Arguments[1].Required {
		t.Errorf("prompt = %s", servertest.MustJSON(pr))
	}
	for lang, want := range map[string]string{"go": "Review this go:\nx := 1", "": "Review this code:\nx := 1"} {
		args := map[string]string{"code": "x := 1"}
		if lang != "" {
			args["language"] = lang
		}
		gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: args})
		if err != nil || gp.Description != "Code review" || len(gp.Messages) != 1 || gp.Messages[0].Role != "user" {
			t.Fatalf("prompts/get %v: %v %s", args, err, servertest.MustJSON(gp))
		}
		if tc, ok := gp.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != want {
			t.Errorf("prompts/get %v: %s, want text %q", args, servertest.MustJSON(gp.Messages[0].Content), want)
		}
	}
	// The server refuses it before the guest runs (its own check would say
	// "code is required"): Invalid Params naming the argument.
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review"}); err == nil || !strings.Contains(err.Error(), `missing required arguments ["code"]`) {
		t.Errorf("prompts/get without code: %v, want an error naming the missing argument code", err)
	}
}

func parityCompletion(t *testing.T, cs *mcp.ClientSession) {
	prompt := &mcp.CompleteReference{Type: "ref/prompt", Name: "review"}
	items := &mcp.CompleteReference{Type: "ref/resource", URI: "parity://items/{id}"}
	for _, c := range []struct {
		ref        *mcp.CompleteReference
		arg, value string
		want       []string
	}{
		{prompt, "language", "", []string{"go", "python", "rust", "typescript"}},
		{prompt, "language", "r", []string{"rust"}},
		{prompt, "language", "py", []string{"python"}},
		{prompt, "language", "zz", []string{}},
		{prompt, "code", "x", []string{}},
		{items, "id", "", []string{"1", "2", "3"}},
		{items, "id", "2", []string{"2"}},
	} {
		cr, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: c.ref,
			Argument: mcp.CompleteParamsArgument{Name: c.arg, Value: c.value}})
		if err != nil {
			t.Errorf("complete %s %s=%q: %v", c.ref.Type, c.arg, c.value, err)
			continue
		}
		if got := cr.Completion.Values; !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("complete %s %s=%q = %q, want %q", c.ref.Type, c.arg, c.value, got, c.want)
		}
	}
}
