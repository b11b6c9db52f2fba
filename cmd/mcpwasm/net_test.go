package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeNetwork: through the real binary, a [[plugin.net]] grant lets
// the plain-PDK plugin reach a local API, with an API key from the
// environment ([plugin.config] token = { env = ... }) that reaches the API
// but never the log, inspect's output, tools/list or the result (the API
// reflects it; the result carries [REDACTED]); a host not granted is an
// isError result naming the reason.
func TestServeNetwork(t *testing.T) {
	const secret = "sk-test-7f3a9c0e2b4d"
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "auth=%s", r.Header.Get("Authorization"))
	}))
	defer api.Close()
	u, _ := url.Parse(api.URL)
	t.Setenv("MCPWASM_TEST_API_KEY", secret)
	dir := t.TempDir()
	cfg := fixture.Config(t, dir, fmt.Sprintf(`[[plugin]]
path = %q
[plugin.config]
token = { env = "MCPWASM_TEST_API_KEY" }
[[plugin.net]]
hosts = ["127.0.0.1"]
ports = [%s]
schemes = ["http"]
methods = ["GET"]
`, fixture.Path(t, "pdk_http"), u.Port()))

	cs, stderr := stdioClient(t, "--config", cfg, "--log-level", "debug")
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pdk_http_fetch", Arguments: map[string]any{"url": api.URL + "/v1", "auth_config": "token"}})
	if err != nil || res.IsError {
		t.Fatalf("granted request: %+v %v\n%s", res, err, stderr)
	}
	// The API got the key and reflected it: the reflection is redacted
	// (host/secrets), so the key never reaches the client.
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "auth=Bearer [REDACTED]") || strings.Contains(text, secret) {
		t.Fatalf("the API's reflection of the key: %s", text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "pdk_http_fetch", Arguments: map[string]any{"url": "http://169.254.169.254/latest/meta-data/"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "not_granted") {
		t.Fatalf("the metadata address: %+v %v", res, err)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range lt.Tools {
		if b := fmt.Sprint(tool); strings.Contains(b, "127.0.0.1") || strings.Contains(b, secret) {
			t.Fatalf("tools/list tells of the grants: %s", b)
		}
	}
	out, errOut, code := runCLI(t, "inspect", "--config", cfg, fixture.Path(t, "pdk_http"))
	if code != 0 || !strings.Contains(out, "network: hosts [127.0.0.1] ports ["+u.Port()+"] schemes [http] methods [GET]") ||
		!strings.Contains(out, "config: token = $MCPWASM_TEST_API_KEY") {
		t.Fatalf("inspect: exit %d\n%s\n%s", code, out, errOut)
	}
	cs.Close()
	if strings.Contains(stderr.String()+out+errOut, secret) {
		t.Fatal("the secret was logged or printed")
	}

	os.Unsetenv("MCPWASM_TEST_API_KEY")
	_, errOut, code = runCLI(t, "validate", "--config", cfg)
	if code == 0 || !strings.Contains(errOut, "token") || !strings.Contains(errOut, "MCPWASM_TEST_API_KEY is not set") {
		t.Fatalf("a missing secret: exit %d\n%s", code, errOut)
	}
}

// TestJSONFetchExample: the first-party jsonfetch plugin, granted a local
// API, returns the value at a path; a host it was not granted is an error.
func TestJSONFetchExample(t *testing.T) {
	path := fixture.Plugin(t, "jsonfetch")
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"items":[{"name":"first"},{"name":"second"}]}`))
	}))
	defer api.Close()
	u, _ := url.Parse(api.URL)
	cfg := filepath.Join(t.TempDir(), "mcpwasm.toml")
	abs, _ := filepath.Abs(path)
	os.WriteFile(cfg, []byte(fmt.Sprintf("[[plugin]]\npath = %q\n[[plugin.net]]\nhosts = [\"127.0.0.1\"]\nports = [%s]\nschemes = [\"http\"]\n", abs, u.Port())), 0o600)
	cs, stderr := stdioClient(t, "--config", cfg)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "jsonfetch_get_json", Arguments: map[string]any{"url": api.URL, "path": "items.1.name"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != `"second"` {
		t.Fatalf("get_json: %+v %v\n%s", res, err, stderr)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "jsonfetch_get_json", Arguments: map[string]any{"url": "https://example.com/"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "host_not_granted") {
		t.Fatalf("a host not granted: %+v %v", res, err)
	}
}
