package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
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
