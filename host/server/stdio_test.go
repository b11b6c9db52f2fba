package server_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/internal/transport/stdiotest"
)

// The stdio framing is package transport's, tested at its boundary; what is
// tested here is the server's use of it.

// TestStdioGuestSeesID: over stdio the guest's context.id (ABI.md §2) is the
// request's id as the client sent it, for ids go-sdk keeps and for those the
// transport maps (the stdio transport records it in the request's extra
// header, which nothing else on the stdio path sets). It fails when the
// header is recorded under a key the handler does not read.
func TestStdioGuestSeesID(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "echo"})
	p := stdiotest.Start(t, srv.ServeStdio, server.StdioOptions{})
	p.Initialize("2025-06-18")
	for _, id := range []string{`7`, `"plain"`, `1.5`, `"\u0041"`, `123456789012345678901234567890`} {
		p.Send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`)
		r, line := p.Next()
		if string(r.ID) != id || r.Error != nil {
			t.Fatalf("id %s: got %s", id, line)
		}
		var res struct {
			StructuredContent struct {
				Context struct {
					ID json.RawMessage `json:"id"`
				} `json:"context"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatalf("id %s: %v: %s", id, err, line)
		}
		var want, got any
		json.Unmarshal([]byte(id), &want)
		json.Unmarshal(res.StructuredContent.Context.ID, &got)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("id %s: the guest saw context.id %s", id, res.StructuredContent.Context.ID)
		}
	}
}
