package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPolicyAndScopesCompose: over HTTP, scopes and policies both apply:
// a token with the scope but denied by a policy is refused by the policy,
// one the policy permits but without the scope by the scope; the principal
// is the token's, over HTTP, authenticated "static".
func TestPolicyAndScopesCompose(t *testing.T) {
	toks := servertest.StaticTokens(t, "alice 0123456789abcdef0123 conf\nbob fedcba9876543210fedc conf\ncarol 00112233445566778899\n")
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	srv.RequireScopes(bearer.Policy{Plugins: map[string]string{"conformance": "conf"}})
	srv.SetPolicy(mustPolicy(t, `
@id("http-static") permit(principal, action, resource) when { principal.transport == "http" && principal.authentication == "static" };
@id("not-bob") @reason("bob may not greet") forbid(principal == User::"bob", action, resource == Tool::"greet");`))
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Access: httpserve.AccessOptions{Verifier: toks.Verify}}) + "/mcp"
	ctx := context.Background()
	greet := func(token string) error {
		cs, err := servertest.ClientWith(url, token)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}})
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
	ctx := context.Background()
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: filepath.Join(os.TempDir(), "mcpwasm-test-cache")})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fixture.Path(t, "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt.Load(ctx, plugin.Config{Name: "conformance", Source: "conformance.wasm", Wasm: data})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	e, err := reg.Add(ctx, p, registry.AddOptions{Unprefixed: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(reg, server.Options{Name: "test", Features: server.Features{Tools: true}})
	srv.AddEntry(e)
	srv.Ready()
	hs := httptest.NewServer(httpserve.Handler(srv, httpserve.Options{Stateless: true}))
	t.Cleanup(func() { hs.Close(); srv.CloseTasks(); reg.Close(ctx); rt.Close(ctx) })
	c := rpc{t: t, url: hs.URL + "/mcp", caps: tasksExt}

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
	first := func(uri string) string {
		params := map[string]any{
			"notifications": map[string]any{"resourceSubscriptions": []string{uri}},
			"_meta": map[string]any{
				mcp.MetaKeyProtocolVersion:    "2026-07-28",
				mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
				mcp.MetaKeyClientCapabilities: map[string]any{},
			},
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": params})
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "subscriptions/listen")
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
	if got := first("test://static-binary"); !strings.Contains(got, "subscriptions/acknowledged") {
		t.Fatalf("allowed resource: %s", got)
	}
	if got := first("test://static-text"); !strings.Contains(got, "-31403") || !strings.Contains(got, "no-text") {
		t.Fatalf("denied resource: %s", got)
	}
}
