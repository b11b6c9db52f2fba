package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/secrets"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoAnswer is the Wasm echo's answer to a tools/call: the text "echo"
// and its whole input envelope as structuredContent (as the guest sends it,
// before go-sdk encodes it).
func echoAnswer() *mcp.CallToolResult {
	env := json.RawMessage(`{"request":{"name":"echo","arguments":{"s":"hello"},"_meta":{"progressToken":1}},"context":{"plugin":"echo","tool":"echo","deadline_ms":5000,"session":"E6VJIN4F24U2DHM4YVXOEENUED","protocol_version":"2025-11-25","client":{"name":"bench","version":"1.0"},"client_capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"mounts":[]}}`)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo"}}, StructuredContent: env}
}

// BenchmarkScrub is the result scan alone, per call, on the Wasm echo's
// answer: with three known secrets and the detectors on (redact, the
// default), with the detectors off and no known secret (what a plugin
// with secrets = "off" pays: nothing is scanned), and strip.
func BenchmarkScrub(b *testing.B) {
	known, _ := secrets.New([]string{"sk-planted-0123456789abcdef", "hunter2-but-longer", "another-known-secret"})
	for _, c := range []struct {
		name string
		p    ResultPolicy
	}{
		{"redact", ResultPolicy{Secrets: secrets.Policy{Known: known, Mode: secrets.Redact}}},
		{"redact-no-known", ResultPolicy{Secrets: secrets.Policy{Mode: secrets.Redact}}},
		{"off", ResultPolicy{Secrets: secrets.Policy{Mode: secrets.Off}}},
		{"off-strip", ResultPolicy{Secrets: secrets.Policy{Mode: secrets.Off}, Strip: true}},
	} {
		s := &Server{opts: Options{Results: func(string) ResultPolicy { return c.p }}, logger: slog.New(slog.DiscardHandler)}
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s.scrub(ctx, "echo", "echo", echoAnswer(), nil)
			}
		})
	}
}
