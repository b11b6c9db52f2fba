package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What a client names that no plugin serves (a tool name, a resource URI)
// is recorded in the audit log clipped: a 100 KB name must not make a
// 100 KB audit line on every request.
func TestAuditClipsClientNames(t *testing.T) {
	rec := &servertest.Events{}
	srv := servertest.Audited(t, rec)
	url := servertest.ServeHTTP(t, srv, httpserve.Options{}) + "/mcp"
	cs := mcptest.Connect(t, url, "")
	long := strings.Repeat("n", 100<<10)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: long, Arguments: map[string]any{}}); err == nil {
		t.Fatal("a call to an unknown tool succeeded")
	}
	var calls []audit.Event
	for _, ev := range rec.All() {
		if ev.Kind == audit.KindCall {
			calls = append(calls, ev)
		}
	}
	if len(calls) != 1 || len(calls[0].Tool) > 1024+len("…") || !strings.HasPrefix(calls[0].Tool, "nnnn") {
		t.Fatalf("audit: %d calls, the last naming a tool of %d bytes; want one, clipped to 1024 and an ellipsis", len(calls), len(calls[len(calls)-1].Tool))
	}
}
