package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lockedBuffer is a bytes.Buffer safe for a logger and a test to share.
type lockedBuffer = fixture.Buffer

// A client's inputResponses keys that the server did not ask for are
// logged (at debug) as a count and a few of them, so a request carrying
// thousands of keys does not become a log line of megabytes.
func TestIgnoredInputResponsesLogBounded(t *testing.T) {
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, _ := newServerWith(t, false, server.Options{Name: "test", Logger: logger}, plugin.RuntimeOptions{}, loadSpec{name: "sample"})
	cs := connectVersion(t, srv, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}},
	}, "2026-07-28")
	answers := mcp.InputResponseMap{}
	for i := range 2000 {
		answers[fmt.Sprintf("%s-%04d", strings.Repeat("k", 58), i)] = forgedAnswer("x")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}, InputResponses: answers})
	if err != nil || !res.NeedsInput() {
		t.Fatalf("%+v %v", res, err)
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "ignoring inputResponses") {
			line = l
		}
	}
	if line == "" || len(line) > 4096 || !strings.Contains(line, "count=2000") {
		t.Fatalf("the log line of ignored keys is %d bytes (want at most 4096, with count=2000): %.300s", len(line), line)
	}
}
