package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
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
