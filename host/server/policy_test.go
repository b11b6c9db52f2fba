package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/policy"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func mustPolicy(t testing.TB, text string) *policy.Set {
	t.Helper()
	s, err := policy.Parse(policy.Document{Name: "test.cedar", Text: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// policyEvents collects the audit log's policy decisions.
type policyEvents struct {
	mu  sync.Mutex
	all []audit.Event
}

func (p *policyEvents) log() *audit.Log {
	l := audit.New(nil, false)
	l.Observe(func(e audit.Event) {
		if e.Kind == audit.KindPolicy {
			p.mu.Lock()
			p.all = append(p.all, e)
			p.mu.Unlock()
		}
	})
	return l
}

func (p *policyEvents) denied(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, e := range p.all {
		if e.Decision == audit.DecisionDeny && slices.Contains(e.Policies, id) && strings.Contains(e.Reason, id) {
			n++
		}
	}
	return n
}

func refusedBy(t *testing.T, what string, err error, id string) {
	t.Helper()
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != server.CodeForbidden || !strings.Contains(re.Message, `"`+id+`"`) {
		t.Errorf("%s: %v, want %d naming policy %q", what, err, server.CodeForbidden, id)
	}
}

const everyMethod = `
@id("base") permit(principal == User::"stdio", action, resource) when { principal.transport == "stdio" };
@id("no-mallory") @reason("greet refuses mallory")
forbid(principal, action == Action::"call_tool", resource == Tool::"greet")
when { context.arguments has name && context.arguments.name == "mallory" };
@id("no-text") forbid(principal, action == Action::"read_resource", resource == Resource::"test://static-text");
@id("no-tmpl") forbid(principal, action, resource) when { resource has template && resource.template == "test://template/{id}/data" };
@id("no-bad-prompt") forbid(principal, action == Action::"get_prompt", resource == Prompt::"test_prompt_with_arguments")
when { context.arguments has arg1 && context.arguments.arg1 == "bad" };
@id("no-complete") forbid(principal, action == Action::"complete", resource in Plugin::"conformance")
when { context.arguments has arg1 && context.arguments.arg1 == "x" };
@id("hidden") forbid(principal, action, resource == Tool::"test_simple_text");
`

// TestPolicyGatesEveryMethod: tools/call (by argument value), resources/read
// (a resource, and through a template), resources/subscribe, prompts/get
// (by argument), completion/complete are each refused with CodeForbidden
// naming the deciding policy, audited with its id; lists leave out what
// is denied whatever the arguments; lifting the policies serves all again.
func TestPolicyGatesEveryMethod(t *testing.T) {
	rec := &policyEvents{}
	srv, _ := newServerWith(t, false, server.Options{Name: "test", Audit: rec.log()}, plugin.RuntimeOptions{}, loadSpec{name: "conformance"})
	srv.SetPolicy(mustPolicy(t, everyMethod))
	cs := connect(t, srv, nil)
	ctx := context.Background()

	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "mallory"}})
	refusedBy(t, "greet mallory", err, "no-mallory")
	var re *jsonrpc.Error
	if errors.As(err, &re) && !strings.Contains(re.Message, "greet refuses mallory") {
		t.Errorf("the message lacks the @reason: %s", re.Message)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "bob"}}); err != nil || res.IsError {
		t.Errorf("greet bob: %v %+v", err, res)
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
	refusedBy(t, "read static-text", err, "no-text")
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"}); err != nil {
		t.Errorf("read static-binary: %v", err)
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/7/data"})
	refusedBy(t, "read through the template", err, "no-tmpl")
	old := connectVersion(t, srv, nil, "2025-11-25") // resources/subscribe is the older protocols'
	err = old.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://static-text"})
	refusedBy(t, "subscribe static-text", err, "no-text")
	if err := old.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://static-binary"}); err != nil {
		t.Errorf("subscribe static-binary: %v", err)
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "bad", "arg2": "y"}})
	refusedBy(t, "prompt arg1=bad", err, "no-bad-prompt")
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "ok", "arg2": "y"}}); err != nil {
		t.Errorf("prompt arg1=ok: %v", err)
	}
	_, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
		Argument: mcp.CompleteParamsArgument{Name: "arg2", Value: "a"}, Context: &mcp.CompleteContext{Arguments: map[string]string{"arg1": "x"}}})
	refusedBy(t, "complete with arg1=x", err, "no-complete")
	_, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "test://template/{id}/data"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: "1"}})
	refusedBy(t, "complete the template", err, "no-tmpl")

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "greet") || slices.Contains(names, "test_simple_text") {
		t.Errorf("tools/list: greet (denied for one argument) must stay, test_simple_text (always denied) go: %v", names)
	}
	res, _ := cs.ListResources(ctx, nil)
	for _, r := range res.Resources {
		if r.URI == "test://static-text" {
			t.Error("resources/list shows a denied resource")
		}
	}
	tm, _ := cs.ListResourceTemplates(ctx, nil)
	for _, r := range tm.ResourceTemplates {
		if r.URITemplate == "test://template/{id}/data" {
			t.Error("resources/templates/list shows a denied template")
		}
	}
	for _, id := range []string{"no-mallory", "no-text", "no-tmpl", "no-bad-prompt", "no-complete"} {
		if rec.denied(id) == 0 {
			t.Errorf("no audited denial by %s", id)
		}
	}
	rec.mu.Lock()
	allowed := 0
	for _, e := range rec.all {
		if e.Decision == audit.DecisionAllow && e.Principal == policy.StdioName && slices.Equal(e.Policies, []string{"base"}) {
			allowed++
		}
	}
	rec.mu.Unlock()
	if allowed < 3 {
		t.Errorf("%d allowed decisions audited with their policy, want the 3 allowed requests", allowed)
	}

	srv.SetPolicy(nil)
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"}); err != nil {
		t.Errorf("no policy: %v", err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"}); err != nil {
		t.Errorf("no policy: %v", err)
	}
}

// TestPolicyDefaultDeny: a set that permits nothing the request matches
// refuses it, saying so; a forbid that cannot be evaluated refuses it
// too, naming the failing policy.
func TestPolicyDefaultDeny(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	cs := connect(t, srv, nil)
	ctx := context.Background()
	srv.SetPolicy(mustPolicy(t, `@id("alice") permit(principal == User::"alice", action, resource);`))
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}})
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != server.CodeForbidden || !strings.Contains(re.Message, "no policy permits call_tool") {
		t.Fatalf("default deny: %v", err)
	}
	srv.SetPolicy(mustPolicy(t, `@id("base") permit(principal, action, resource);
@id("limit") forbid(principal, action, resource) when { context.arguments.n > 3 };`))
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}})
	refusedBy(t, "failing forbid", err, "limit")
}

// BenchmarkPolicyCall: a Wasm echo call over the in-memory transport with
// no policy, and with 100 policies (each matching on the tool, the
// principal or the arguments), for the cost a decision adds to a call.
func BenchmarkPolicyCall(b *testing.B) {
	var text strings.Builder
	text.WriteString(`@id("base") permit(principal, action, resource);` + "\n")
	for i := 0; i < 99; i++ {
		fmt.Fprintf(&text, "@id(\"p%d\") forbid(principal == User::\"u%d\", action == Action::\"call_tool\", resource) unless { context.arguments has text && context.arguments.text like \"*%d*\" };\n", i, i, i)
	}
	set := mustPolicy(b, text.String())
	for _, c := range []struct {
		name string
		set  *policy.Set
	}{{"none", nil}, {"100-policies", set}} {
		b.Run(c.name, func(b *testing.B) {
			srv, _ := newServer(b, false, loadSpec{name: "echo"})
			srv.SetPolicy(c.set)
			cs := connectVersion(b, srv, nil, "2025-11-25")
			benchCall(b, cs, "echo")
		})
	}
}

// TestPolicyAndScopesCompose: over HTTP, scopes and policies both apply:
// a token with the scope but denied by a policy is refused by the policy,
// one the policy permits but without the scope by the scope; the principal
// is the token's, over HTTP, authenticated "static".
func TestPolicyAndScopesCompose(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	srv.SetPolicy(mustPolicy(t, `
@id("http-static") permit(principal, action, resource) when { principal.transport == "http" && principal.authentication == "static" };
@id("not-bob") @reason("bob may not greet") forbid(principal == User::"bob", action, resource == Tool::"greet");`))
	url := serveScoped(t, srv, "alice 0123456789abcdef0123 conf\nbob fedcba9876543210fedc conf\ncarol 00112233445566778899\n", confScope, httpserve.Options{})
	ctx := context.Background()
	greet := func(token string) error {
		cs := mcptest.Connect(t, url, token)
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}})
		return err
	}
	if err := greet("0123456789abcdef0123"); err != nil {
		t.Fatalf("alice (scope, policy): %v", err)
	}
	refusedBy(t, "bob (scope, no policy)", greet("fedcba9876543210fedc"), "not-bob")
	if err := greet("00112233445566778899"); err == nil || !strings.Contains(err.Error(), `scope "conf"`) {
		t.Fatalf("carol (policy, no scope): %v", err)
	}
}

// TestPolicyChecksTasks: tasks/get on a task is decided as the tools/call
// it continues, on the policies in force then: a task started while
// allowed cannot be read once a policy forbids its tool.
func TestPolicyChecksTasks(t *testing.T) {
	url, srv, _ := taskHarness(t, server.Options{}, httpserve.Options{}, plugin.Config{})
	c := rpc{t: t, url: url, caps: tasksExt}

	srv.SetPolicy(mustPolicy(t, `@id("base") permit(principal, action, resource);`))
	id := taskID(t, c.tool("slow_compute", map[string]any{"seconds": 0.1, "label": "a"}))
	c.await(id, "completed")
	srv.SetPolicy(mustPolicy(t, `@id("base") permit(principal, action, resource);
@id("no-label-a") forbid(principal, action == Action::"call_tool", resource == Tool::"slow_compute") when { context.arguments has label && context.arguments.label == "a" };`))
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		r := c.task(m, id, nil)
		if r.Error == nil || r.Error.Code != server.CodeForbidden || !strings.Contains(r.Error.Message, `"no-label-a"`) {
			t.Fatalf("%s under the tightened policy: %+v %+v", m, r.Result, r.Error)
		}
	}
	// Another task of the same tool, with other arguments, is still served.
	id2 := taskID(t, c.tool("slow_compute", map[string]any{"seconds": 0.1, "label": "b"}))
	c.await(id2, "completed")
	// And a new call with the forbidden arguments never starts a task.
	if r := c.tool("slow_compute", map[string]any{"seconds": 0.1, "label": "a"}); r.Error == nil || r.Error.Code != server.CodeForbidden {
		t.Fatalf("a new task with label a: %+v %+v", r.Result, r.Error)
	}
}

// TestPolicyGatesSubscriptionsListen: 2026-07-28's subscriptions/listen is
// decided as a read of each resource it watches.
func TestPolicyGatesSubscriptionsListen(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	srv.SetPolicy(mustPolicy(t, `@id("base") permit(principal, action, resource);
@id("no-text") forbid(principal, action == Action::"read_resource", resource == Resource::"test://static-text");`))
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Stateless: true}) + "/mcp"
	first := func(uri string) string { return listenFirst(t, url, "", uri) }
	if got := first("test://static-binary"); !strings.Contains(got, "subscriptions/acknowledged") {
		t.Fatalf("allowed resource: %s", got)
	}
	if got := first("test://static-text"); !strings.Contains(got, "-31403") || !strings.Contains(got, "no-text") {
		t.Fatalf("denied resource: %s", got)
	}
}

// fullAndNone are two static tokens: full holds scope "conf", none holds
// no scope.
const fullAndNone = "full 0123456789abcdef0123 conf\nnone fedcba9876543210fedc\n"

// confScope has the conformance fixture require scope "conf".
var confScope = map[string]string{"conformance": "conf"}

// serveScoped serves srv over HTTP (o, with a verifier for the static
// tokens lines), each plugin of scopes requiring its scope, and returns
// the /mcp URL.
func serveScoped(t *testing.T, srv *server.Server, lines string, scopes map[string]string, o httpserve.Options) string {
	t.Helper()
	srv.RequireScopes(bearer.Policy{Plugins: scopes})
	o.Access.Verifier = servertest.StaticTokens(t, lines).Verify
	return servertest.ServeHTTP(t, srv, o) + "/mcp"
}

// completion/complete with a ref/resource that names a concrete URI (one a
// template matches, or a declared resource) rather than the template
// itself is served by the plugin that owns the URI, so its scope gates it
// too: before, only a template named exactly was checked, and a token
// without the plugin's scope ran its complete export by naming a URI.
func TestScopesGateCompletionByURI(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	url := serveScoped(t, srv, fullAndNone, confScope, httpserve.Options{})
	ctx := context.Background()
	complete := func(cs *mcp.ClientSession, uri string) error {
		_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: uri},
			Argument: mcp.CompleteParamsArgument{Name: "id", Value: "1"}})
		return err
	}
	full := mcptest.Connect(t, url, "0123456789abcdef0123")
	none := mcptest.Connect(t, url, "fedcba9876543210fedc")
	for _, uri := range []string{"test://template/{id}/data", "test://template/1/data", "test://static-text"} {
		if err := complete(full, uri); err != nil {
			t.Errorf("%s with the scope: %v", uri, err)
		}
		var rpcErr *jsonrpc.Error
		if err := complete(none, uri); !errors.As(err, &rpcErr) || rpcErr.Code != server.CodeForbidden || !strings.Contains(rpcErr.Message, `scope "conf"`) {
			t.Errorf("%s without the scope: %v, want error %d", uri, err, server.CodeForbidden)
		}
	}
}

// In 2026-07-28 a client subscribes to resources through
// subscriptions/listen (resourceSubscriptions), not resources/subscribe:
// the scopes gate it the same way, so a token without a plugin's scope
// cannot watch that plugin's resources.
func TestScopesGateSubscriptionsListen(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	url := serveScoped(t, srv, fullAndNone, confScope, httpserve.Options{Stateless: true})
	first := func(token string) string { return listenFirst(t, url, token, "test://static-text") }
	if got := first("0123456789abcdef0123"); !strings.Contains(got, "subscriptions/acknowledged") {
		t.Fatalf("with the scope: %s, want the acknowledgement", got)
	}
	if got := first("fedcba9876543210fedc"); !strings.Contains(got, `"code":-31403`) || !strings.Contains(got, `scope \"conf\"`) {
		t.Fatalf("without the scope: %s, want error -31403 naming the scope", got)
	}
}

// listenFirst sends a raw 2026-07-28 subscriptions/listen for uri (with
// the bearer token, if any) and returns the first message the server
// answers it with: its acknowledgement, or an error.
func listenFirst(t *testing.T, url, token, uri string) string {
	t.Helper()
	params := map[string]any{
		"notifications": map[string]any{"resourceSubscriptions": []string{uri}},
		"_meta": map[string]any{
			mcp.MetaKeyProtocolVersion:    "2026-07-28",
			mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
			mcp.MetaKeyClientCapabilities: map[string]any{},
		},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": params})
	req, _ := mcptest.Post(context.Background(), url, bytes.NewReader(body))
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := strings.TrimPrefix(sc.Text(), "data:"); strings.Contains(line, `"jsonrpc"`) {
			return line
		}
	}
	return ""
}

// A URI that two plugins' templates both match (test://template/1/data:
// the conformance fixture's test://template/{id}/data and
// overlap_template's test://{host}/1/data, which the load-time overlap
// check does not catch) is routed to one of them, the same one every time,
// and the scope checked is that plugin's. Before, the scope check and the
// read each picked a template in map order: a token without the other
// plugin's scope was refused at random, or passed the check for one plugin
// and read through the other.
func TestOverlappingTemplatesRouteConsistently(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"}, loadSpec{name: "overlap_template"})
	url := serveScoped(t, srv, "c 0123456789abcdef0123 conf\n", map[string]string{"conformance": "conf", "overlap_template": "secret"},
		httpserve.Options{Access: httpserve.AccessOptions{Rate: -1}})
	cs := mcptest.Connect(t, url, "0123456789abcdef0123")
	for i := range 24 {
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://template/1/data"})
		if err != nil {
			t.Fatalf("read %d: %v, want the conformance plugin's content (its template sorts first)", i, err)
		}
		if got := res.Contents[0].Text; strings.Contains(got, "overlap") {
			t.Fatalf("read %d: %q: the token without scope \"secret\" read through overlap_template", i, got)
		}
	}
}
