package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A URI that two plugins' templates both match (test://template/1/data:
// the conformance fixture's test://template/{id}/data and
// overlap_template's test://{host}/1/data, which the load-time overlap
// check does not catch) is routed to one of them, the same one every time,
// and the scope checked is that plugin's. Before, the scope check and the
// read each picked a template in map order: a token without the other
// plugin's scope was refused at random, or passed the check for one plugin
// and read through the other.
func TestOverlappingTemplatesRouteConsistently(t *testing.T) {
	toks := servertest.StaticTokens(t, "c 0123456789abcdef0123 conf\n")
	srv, _ := newServer(t, false, loadSpec{name: "conformance"}, loadSpec{name: "overlap_template"})
	srv.RequireScopes(bearer.Policy{Plugins: map[string]string{"conformance": "conf", "overlap_template": "secret"}})
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Access: httpserve.AccessOptions{Verifier: toks.Verify, Rate: -1}}) + "/mcp"
	cs, err := servertest.ClientWith(url, "0123456789abcdef0123")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
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
