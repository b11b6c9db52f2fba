package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// post2026 sends one 2026-07-28 request (stateless: no session, the
// protocol version and client in _meta) with the given extra headers, and
// returns the status and the JSON-RPC reply.
func post2026(t *testing.T, url, method string, params map[string]any, headers map[string]string) (int, mcptest.Reply) {
	t.Helper()
	params["_meta"] = map[string]any{
		mcp.MetaKeyProtocolVersion:    "2026-07-28",
		mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
		mcp.MetaKeyClientCapabilities: map[string]any{},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	req, err := mcptest.Post(context.Background(), url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp := mcptest.Do(t, req)
	b, _ := io.ReadAll(resp.Body)
	raw := string(b)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw = ""
		for _, line := range strings.Split(string(b), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok && strings.Contains(d, `"id"`) {
				raw = strings.TrimSpace(d)
			}
		}
	}
	var r mcptest.Reply
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatalf("%s: status %d, body %q: %v", method, resp.StatusCode, b, err)
	}
	return resp.StatusCode, r
}

// In protocol 2026-07-28 the Mcp-Method header must name the body's method
// and Mcp-Name its tool, prompt or resource, and an x-mcp-header argument
// must be mirrored in its Mcp-Param-* header; a request that breaks this is
// refused with HTTP 400 and HeaderMismatch (-32020) before any guest runs.
// go-sdk's Streamable HTTP handler checks it; this proves our HTTP server
// (its guards, auth and body limits in front) keeps the check.
func TestHTTPMcpHeaderChecks(t *testing.T) {
	rec := &servertest.Events{}
	srv, _ := newServerWith(t, false, server.Options{Name: "test", Audit: rec.Log()}, plugin.RuntimeOptions{},
		loadSpec{name: "conformance"})
	hs := httptest.NewServer(httpserve.Handler(srv, httpserve.Options{Stateless: true}))
	t.Cleanup(hs.Close)
	call := func(name string, args map[string]any) map[string]any {
		return map[string]any{"name": name, "arguments": args}
	}
	cases := []struct {
		name    string
		method  string
		params  map[string]any
		headers map[string]string
		ok      string // text of a successful tools/call, or "" for a refusal
	}{
		{"matching", "tools/call", call("test_simple_text", map[string]any{}),
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "test_simple_text"}, "This is a simple text response"},
		{"name names another tool", "tools/call", call("test_simple_text", map[string]any{}),
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "test_error_handling"}, ""},
		{"method names another method", "tools/call", call("test_simple_text", map[string]any{}),
			map[string]string{"Mcp-Method": "tools/list", "Mcp-Name": "test_simple_text"}, ""},
		{"no Mcp-Method", "tools/call", call("test_simple_text", map[string]any{}),
			map[string]string{"Mcp-Name": "test_simple_text"}, ""},
		{"no Mcp-Name", "tools/call", call("test_simple_text", map[string]any{}),
			map[string]string{"Mcp-Method": "tools/call"}, ""},
		{"no Mcp-Method on a list", "tools/list", map[string]any{}, nil, ""},
		{"resource name mismatch", "resources/read", map[string]any{"uri": "test://static-text"},
			map[string]string{"Mcp-Method": "resources/read", "Mcp-Name": "test://static-binary"}, ""},
		{"prompt name mismatch", "prompts/get", map[string]any{"name": "test_simple_prompt"},
			map[string]string{"Mcp-Method": "prompts/get", "Mcp-Name": "test_prompt_with_image"}, ""},
		{"param mirrored", "tools/call", call("test_x_mcp_header", map[string]any{"region": "eu-west"}),
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "test_x_mcp_header", "Mcp-Param-Region": "eu-west"}, "region=eu-west"},
		{"param mirrored in base64", "tools/call", call("test_x_mcp_header", map[string]any{"region": "Hello"}),
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "test_x_mcp_header", "Mcp-Param-Region": "=?base64?SGVsbG8=?="}, "region=Hello"},
		{"param differs", "tools/call", call("test_x_mcp_header", map[string]any{"region": "eu-west"}),
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "test_x_mcp_header", "Mcp-Param-Region": "us-east"}, ""},
		{"param missing", "tools/call", call("test_x_mcp_header", map[string]any{"region": "eu-west"}),
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "test_x_mcp_header"}, ""},
		{"param bad base64", "tools/call", call("test_x_mcp_header", map[string]any{"region": "Hello"}),
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "test_x_mcp_header", "Mcp-Param-Region": "=?base64?SGVsbG8?="}, ""},
		{"param for an absent argument", "tools/call", call("test_x_mcp_header", map[string]any{}),
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "test_x_mcp_header", "Mcp-Param-Region": "eu-west"}, ""},
	}
	served := 0
	for _, c := range cases {
		if c.ok != "" {
			served++
		}
		t.Run(c.name, func(t *testing.T) {
			status, r := post2026(t, hs.URL, c.method, c.params, c.headers)
			if c.ok == "" {
				if status != http.StatusBadRequest || r.Error == nil || r.Error.Code != mcp.CodeHeaderMismatch {
					t.Fatalf("status %d, reply %s; want 400 with error %d", status, show(r), mcp.CodeHeaderMismatch)
				}
				return
			}
			if status != http.StatusOK || r.Error != nil || !strings.Contains(string(r.Result), c.ok) {
				t.Fatalf("status %d, reply %s; want 200 with %q", status, show(r), c.ok)
			}
		})
	}
	calls := 0
	for _, ev := range rec.All() {
		if ev.Kind == audit.KindCall {
			calls++
		}
	}
	if calls != served {
		t.Fatalf("%d calls reached a plugin, want %d: a refused request must not run", calls, served)
	}
}

func show(r mcptest.Reply) string {
	if r.Error != nil {
		return fmt.Sprintf("error %d %q", r.Error.Code, r.Error.Message)
	}
	return string(r.Result)
}
