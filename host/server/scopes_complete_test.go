package server_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// completion/complete with a ref/resource that names a concrete URI (one a
// template matches, or a declared resource) rather than the template
// itself is served by the plugin that owns the URI, so its scope gates it
// too: before, only a template named exactly was checked, and a token
// without the plugin's scope ran its complete export by naming a URI.
func TestScopesGateCompletionByURI(t *testing.T) {
	toks := servertest.StaticTokens(t, "full 0123456789abcdef0123 conf\nnone fedcba9876543210fedc\n")
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	srv.RequireScopes(bearer.Policy{Plugins: map[string]string{"conformance": "conf"}})
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Access: httpserve.AccessOptions{Verifier: toks.Verify}}) + "/mcp"
	ctx := context.Background()
	complete := func(cs *mcp.ClientSession, uri string) error {
		_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: uri},
			Argument: mcp.CompleteParamsArgument{Name: "id", Value: "1"}})
		return err
	}
	full, err := servertest.ClientWith(url, "0123456789abcdef0123")
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	none, err := servertest.ClientWith(url, "fedcba9876543210fedc")
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
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
