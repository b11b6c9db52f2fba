package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/secrets"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const planted = "sk-planted-0123456789abcdef"

// declaresServer serves the declares fixture answering result (its
// config), under policy.
func declaresServer(t *testing.T, result string, policy server.ResultPolicy, rec *servertest.Events) *mcp.ClientSession {
	t.Helper()
	tools := `{"tools":[{"name":"say","inputSchema":{"type":"object"}}]}`
	opts := server.Options{Name: "test", Results: func(string) server.ResultPolicy { return policy }}
	if rec != nil {
		opts.Audit = rec.Log()
	}
	srv, _ := servertest.Load(t, false, opts, plugin.RuntimeOptions{},
		servertest.Spec{Name: "declares", Cfg: plugin.Config{GuestConfig: map[string]string{"tools": tools, "result": result}}})
	return connect(t, srv, nil)
}

// TestScrubResults: a known secret in a tool's text, structuredContent,
// _meta and error text — as written, split across lines, JSON-escaped,
// base64 — never reaches the client; a credential found by format is
// redacted, or the result withheld under "block", or passed under "log";
// hidden characters are stripped under results_hidden_text = "strip"; each
// is audited (no value in the audit log).
func TestScrubResults(t *testing.T) {
	known, _ := secrets.New([]string{planted})
	b64 := base64.StdEncoding.EncodeToString([]byte("user:" + planted))
	res := map[string]any{
		"content": []any{
			map[string]any{"type": "text", "text": "token " + planted[:10] + "\n" + planted[10:] + " and AKIAIOSFODNN7EXAMPLE"},
			map[string]any{"type": "text", "text": "Basic " + b64},
		},
		"structuredContent": map[string]any{"echo": planted, "nested": []any{"x " + planted}},
		"_meta":             map[string]any{"leak": planted},
		"isError":           true,
	}
	raw, _ := json.Marshal(res)
	rec := &servertest.Events{}
	cs := declaresServer(t, string(raw), server.ResultPolicy{Secrets: secrets.Policy{Known: known, Mode: secrets.Redact}}, rec)
	out := servertest.Call(t, cs, "say", map[string]any{})
	js := servertest.MustJSON(out)
	if strings.Contains(js, planted[:10]) || strings.Contains(js, "AKIAIOSFODNN7EXAMPLE") || strings.Contains(js, b64[8:30]) {
		t.Fatalf("a secret reached the client: %s", js)
	}
	if !strings.Contains(js, secrets.Marker) || !strings.Contains(js, "[REDACTED:aws-access-key]") {
		t.Fatalf("no marker: %s", js)
	}
	var red []string
	for _, e := range rec.All() {
		if e.Kind == "trust" {
			red = append(red, e.Outcome)
			if strings.Contains(servertest.MustJSON(e), planted[:10]) {
				t.Fatalf("the audit event holds the secret: %s", servertest.MustJSON(e))
			}
		}
	}
	if len(red) != 1 || red[0] != "redaction" {
		t.Fatalf("audit: %v", red)
	}

	block := declaresServer(t, `{"content":[{"type":"text","text":"xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"}]}`,
		server.ResultPolicy{Secrets: secrets.Policy{Mode: secrets.Block}}, nil)
	out = servertest.Call(t, block, "say", map[string]any{})
	if js := servertest.MustJSON(out); !out.IsError || !strings.Contains(js, "withheld") || !strings.Contains(js, "slack-token") || strings.Contains(js, "xoxb-123") {
		t.Fatalf("block: %s", js)
	}
	logMode := declaresServer(t, `{"content":[{"type":"text","text":"AKIAIOSFODNN7EXAMPLE"}]}`,
		server.ResultPolicy{Secrets: secrets.Policy{Mode: secrets.Log}}, nil)
	if got := servertest.Text(servertest.Call(t, logMode, "say", map[string]any{})); got != "AKIAIOSFODNN7EXAMPLE" {
		t.Fatalf("log mode changed the text: %q", got)
	}
	strip := declaresServer(t, `{"content":[{"type":"text","text":"ok\u200b\udb40\udc41"}]}`,
		server.ResultPolicy{Secrets: secrets.Policy{Mode: secrets.Off}, Strip: true}, nil)
	if got := servertest.Text(servertest.Call(t, strip, "say", map[string]any{})); got != "ok" {
		t.Fatalf("strip: %q", got)
	}
	keep := declaresServer(t, `{"content":[{"type":"text","text":"ok\u200b"}]}`,
		server.ResultPolicy{Secrets: secrets.Policy{Mode: secrets.Redact}}, nil)
	if got := servertest.Text(servertest.Call(t, keep, "say", map[string]any{})); got != "ok\u200b" {
		t.Fatalf("results rewritten without strip: %q", got)
	}
}

// BenchmarkScrubEcho is the result scan's cost on the Wasm echo's answer
// (its whole input envelope as structuredContent): detectors on (redact,
// with three known secrets) against off with no known secrets. Compare with
// BenchmarkToolsCall's wasm-echo.
func BenchmarkScrubEcho(b *testing.B) {
	known, _ := secrets.New([]string{planted, "hunter2-but-longer", "another-known-secret"})
	for _, c := range []struct {
		name string
		p    server.ResultPolicy
	}{
		{"redact", server.ResultPolicy{Secrets: secrets.Policy{Known: known, Mode: secrets.Redact}}},
		{"off", server.ResultPolicy{Secrets: secrets.Policy{Mode: secrets.Off}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			srv, _ := servertest.Load(b, false, server.Options{Name: "bench", Results: func(string) server.ResultPolicy { return c.p }},
				plugin.RuntimeOptions{}, servertest.Spec{Name: "echo"})
			cs := connect(b, srv, nil)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"s": "hello"}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
