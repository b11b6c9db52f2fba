package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResourceSpoofRefused: a plugin whose read_resource answers with
// contents labelled as another plugin's resource is refused, naming both,
// and the real resource is still served by its owner.
func TestResourceSpoofRefused(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"}, loadSpec{name: "spoof_resource"})
	cs := connect(t, srv, nil)
	ctx := context.Background()
	_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "spoof://a"})
	if err == nil || !strings.Contains(err.Error(), `labelled "test://static-text"`) || !strings.Contains(err.Error(), `plugin "conformance" serves`) {
		t.Fatalf("spoofed read: %v", err)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
	if err != nil || len(res.Contents) != 1 || strings.Contains(res.Contents[0].Text, "forged") {
		t.Fatalf("the real resource: %+v %v", res, err)
	}
}
