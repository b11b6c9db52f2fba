package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client's roots list is the client's to make long: thousands of roots
// that are not local folders, or are outside every grant, are skipped with
// a warning naming how many (and a few), not a warning each, and only the
// first 256 are resolved on the host's filesystem. What is skipped only
// narrows the mounts.
func TestClientRootsFloodBounded(t *testing.T) {
	grant, outside := fsTree(t)
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv, _ := newServerWith(t, false, server.Options{Name: "test", Logger: logger}, plugin.RuntimeOptions{},
		loadSpec{name: "conformance", cfg: plugin.Config{Grants: []plugin.Grant{{Path: grant, ReadOnly: true}}}})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}})
	roots := []*mcp.Root{{URI: "file://" + grant}}
	for i := range 200 { // one folder outside the grant, under 200 URIs
		roots = append(roots, &mcp.Root{URI: "file://" + outside + strings.Repeat("/", i+1)})
	}
	for i := range 5000 {
		roots = append(roots, &mcp.Root{URI: fmt.Sprintf("https://example.com/%d\nlevel=ERROR msg=forged", i)})
	}
	c.AddRoots(roots...)
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://static-text"})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("read: %v %+v", err, res)
	}
	warned := strings.Count(logs.String(), "client root")
	if warned == 0 || warned > 2 {
		t.Fatalf("%d log lines about the client's roots, want one or two:\n%.2000s", warned, logs.String())
	}
	if !strings.Contains(logs.String(), "skipped=5000") || !strings.Contains(logs.String(), "outside=200") {
		t.Fatalf("the warning does not say how many roots were skipped:\n%.2000s", logs.String())
	}
}
