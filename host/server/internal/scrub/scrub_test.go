package scrub

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/secrets"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
		p    Policy
	}{
		{"redact", Policy{Secrets: secrets.Policy{Known: known, Mode: secrets.Redact}}},
		{"redact-no-known", Policy{Secrets: secrets.Policy{Mode: secrets.Redact}}},
		{"off", Policy{Secrets: secrets.Policy{Mode: secrets.Off}}},
		{"off-strip", Policy{Secrets: secrets.Policy{Mode: secrets.Off}, Strip: true}},
	} {
		s := &Scrubber{Policy: func(string) Policy { return c.p }, Logger: slog.New(slog.DiscardHandler)}
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s.Answer(ctx, "echo", "echo", echoAnswer(), nil)
			}
		})
	}
}

// TestScrubKinds: resource reads (text and blob), prompt messages,
// completions and protocol errors are scrubbed like tool results.
func TestScrubKinds(t *testing.T) {
	const secret = "sk-planted-0123456789abcdef"
	known, _ := secrets.New([]string{secret})
	s := &Scrubber{Policy: func(string) Policy {
		return Policy{Secrets: secrets.Policy{Known: known, Mode: secrets.Redact}}
	}, Logger: slog.New(slog.DiscardHandler)}
	ctx := context.Background()
	check := func(what string, v any) {
		t.Helper()
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), secret) || !strings.Contains(string(b), secrets.Marker) {
			t.Errorf("%s: %s", what, b)
		}
	}
	read, _ := s.Answer(ctx, "p", "r", &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: "x://a", Text: "t " + secret}, {URI: "x://b", Blob: []byte("bin\x00" + secret)}}}, nil)
	check("read text", read.(*mcp.ReadResourceResult).Contents[0])
	check("read blob", string(read.(*mcp.ReadResourceResult).Contents[1].Blob))
	prompt, _ := s.Answer(ctx, "p", "pr", &mcp.GetPromptResult{Description: "d " + secret,
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "m " + secret}}}}, nil)
	check("prompt description", prompt.(*mcp.GetPromptResult).Description)
	check("prompt message", prompt.(*mcp.GetPromptResult).Messages[0])
	comp, _ := s.Answer(ctx, "p", "c", &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"v " + secret}}}, nil)
	check("completion", comp.(*mcp.CompleteResult).Completion.Values)
	_, err := s.Answer(ctx, "p", "e", nil, &jsonrpc.Error{Code: -32603, Message: "failed: " + secret})
	check("jsonrpc error", err.Error())
	_, err = s.Answer(ctx, "p", "e", nil, errors.New("failed: "+secret))
	check("error", err.Error())
	var nilRes *mcp.CallToolResult
	if r, _ := s.Answer(ctx, "p", "t", nilRes, nil); r != nilRes {
		t.Fatal("a nil result changed")
	}
}
