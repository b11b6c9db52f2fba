package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestSecretsNeverLeaveE2E: secrets the server knows — a [plugin.config]
// value from the environment and one from a file — planted in guests'
// answers never reach the client, the log (debug level) or the audit log,
// over stdio and HTTP:
//
//   - through the header-reflecting path: the pdk_http guest sends its
//     config secret as a bearer token to a granted API that echoes the
//     request's headers and a Basic login made from it back into the body;
//   - through the declares guest, whose answer carries the file secret as
//     written, split across lines, JSON-escaped and in base64, in text,
//     structuredContent, _meta and an error result, next to a GitHub token.
func TestSecretsNeverLeaveE2E(t *testing.T) {
	const envSecret = "sk-e2e-env-7f3a9c0e2b4d61"
	const fileSecret = `file"secret/9c1b<8e7>a2f04d`
	ghToken := "ghp_" + strings.Repeat("Ab3", 12)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		basic := base64.StdEncoding.EncodeToString([]byte("user:" + strings.TrimPrefix(auth, "Bearer ")))
		fmt.Fprintf(w, "you sent %q; as a login: Basic %s; the key split: %s\n%s", auth, basic, auth[:12], auth[12:])
	}))
	defer api.Close()
	u, _ := url.Parse(api.URL)
	t.Setenv("MCPWASM_TEST_E2E_SECRET", envSecret)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte(fileSecret+"\n"), 0o600)
	esc, _ := json.Marshal(fileSecret)
	answer, _ := json.Marshal(map[string]any{
		"content": []any{
			map[string]any{"type": "text", "text": "as written: " + fileSecret},
			map[string]any{"type": "text", "text": "split: " + fileSecret[:5] + "\r\n" + fileSecret[5:]},
			map[string]any{"type": "text", "text": "escaped: " + string(esc)},
			map[string]any{"type": "text", "text": "base64: " + base64.StdEncoding.EncodeToString([]byte(fileSecret))},
			map[string]any{"type": "text", "text": "a token: " + ghToken},
		},
		"structuredContent": map[string]any{"secret": fileSecret, "list": []any{"x" + fileSecret}},
		"_meta":             map[string]any{"leak": fileSecret},
		"isError":           true,
	})
	tools := `{"tools":[{"name":"say","inputSchema":{"type":"object"}}]}`
	cfgText := fmt.Sprintf(`[server.audit]
file = "audit.log"

[[plugin]]
path = %q
[plugin.config]
token = { env = "MCPWASM_TEST_E2E_SECRET" }
[[plugin.net]]
hosts = ["127.0.0.1"]
ports = [%s]
schemes = ["http"]

[[plugin]]
path = %q
[plugin.config]
key = { file = "secret.txt" }
tools = '%s'
result = '%s'
`, fixture.Path(t, "pdk_http"), u.Port(), fixture.Path(t, "declares"), tools, strings.ReplaceAll(string(answer), "'", `\u0027`))
	cfg := fixture.Config(t, dir, cfgText)
	b64 := base64.StdEncoding.EncodeToString([]byte(fileSecret))
	forbidden := []string{envSecret, fileSecret, string(esc[1 : len(esc)-1]), b64[4:24], ghToken, envSecret[:12] /* split */}
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			var cs *mcp.ClientSession
			var stderr fmt.Stringer
			if transport == "stdio" {
				cs, stderr = stdioClient(t, "--config", cfg, "--log-level", "debug")
			} else {
				url, _, log := httpServeCmd(t, "--config", cfg, "--log-level", "debug")
				stderr = log
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var err error
				if cs, err = mcp.NewClient(&mcp.Implementation{Name: "secrets-e2e"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil); err != nil {
					t.Fatal(err)
				}
			}
			ctx := context.Background()
			var seen []string
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pdk_http_fetch", Arguments: map[string]any{"url": api.URL + "/v1", "auth_config": "token"}})
			if err != nil || res.IsError {
				t.Fatalf("fetch: %+v %v\n%s", res, err, stderr)
			}
			b, _ := json.Marshal(res)
			seen = append(seen, string(b))
			if !strings.Contains(string(b), "Bearer [REDACTED]") {
				t.Fatalf("the reflection is not there, redacted: %s", b)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "declares_say", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			b, _ = json.Marshal(res)
			seen = append(seen, string(b))
			if strings.Count(string(b), "[REDACTED]") < 6 || !strings.Contains(string(b), "[REDACTED:github-token]") {
				t.Fatalf("declares: %s", b)
			}
			cs.Close()
			time.Sleep(100 * time.Millisecond) // the audit line of the last call is written as it returns
			audit, _ := os.ReadFile(filepath.Join(dir, "audit.log"))
			if !strings.Contains(string(audit), `"outcome":"redaction"`) {
				t.Fatalf("no redaction in the audit log:\n%s", audit)
			}
			seen = append(seen, stderr.String(), string(audit))
			for _, s := range seen {
				for _, f := range forbidden {
					if strings.Contains(s, f) {
						t.Errorf("%q reached a sink:\n%s", f, s)
					}
				}
			}
		})
	}
}
