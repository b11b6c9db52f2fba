package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwasm/mcpwasm/host/source/store"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/ocitest"
)

// isolate gives the binaries this test starts their own user cache folder
// (the default plugin store) and an empty Docker credential folder.
func isolate(t *testing.T) string {
	t.Helper()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	return cache
}

// readFixture returns a built fixture plugin's bytes.
func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixture.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// callTool calls an echo tool and checks the guest answered.
func callTool(t *testing.T, cs *mcp.ClientSession, tool string, stderr fmt.Stringer) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "from the registry"}})
	if err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s", tool, err, stderr)
	}
	out, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(out), `"text":"from the registry"`) {
		t.Fatalf("%s: %+v\nstderr:\n%s", tool, res, stderr)
	}
}

// trustTLS makes the binaries this test starts trust srv's certificate.
func trustTLS(t *testing.T, srv *httptest.Server) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", p)
}

// TestServeRemoteSources: oci:// and https:// plugins, in the config and
// as arguments, are fetched, pinned and served; a tool of each answers
// through go-sdk's client.
func TestServeRemoteSources(t *testing.T) {
	isolate(t)
	reg := ocitest.New(t)
	echo := readFixture(t, "echo")
	desc := reg.PushWasm(t, "plugins/echo", "1.0", echo)
	reg.PushWasm(t, "plugins/second", "latest", echo)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(echo) }))
	defer srv.Close()
	trustTLS(t, srv)
	sum := strings.TrimPrefix(store.Digest(echo), "sha256:")

	dir := t.TempDir()
	cfg := fixture.Config(t, dir, `
[[plugin]]
path = "oci://`+reg.Host()+`/plugins/echo:1.0"

[[plugin]]
name = "web"
path = "`+srv.URL+`/dl/echo.wasm"
sha256 = "`+sum+`"
`)
	cs, stderr := stdioClient(t, "--config", cfg,
		"oci://"+reg.Host()+"/plugins/second@"+reg.Repo("plugins/second").MustResolve(t, "latest"),
		srv.URL+"/other/third.wasm#sha256="+sum)
	if got := toolNames(t, cs, stderr); got != "echo_echo,second_echo,third_echo,web_echo" {
		t.Fatalf("tools = %s\nstderr:\n%s", got, stderr)
	}
	for _, tool := range []string{"echo_echo", "web_echo", "second_echo", "third_echo"} {
		callTool(t, cs, tool, stderr)
	}
	lock, err := os.ReadFile(filepath.Join(dir, "mcpwasm.lock"))
	if err != nil || !strings.Contains(string(lock), "oci://"+reg.Host()+"/plugins/echo:1.0 "+desc.Digest.String()) {
		t.Fatalf("lock file: %v\n%s", err, lock)
	}
	var pins []string // the pin lines, not the declarations approved (decl …)
	for _, l := range strings.Split(string(lock), "\n") {
		if !strings.HasPrefix(l, "decl ") {
			pins = append(pins, l)
		}
	}
	if p := strings.Join(pins, "\n"); strings.Contains(p, "second") || strings.Contains(p, srv.URL) {
		t.Fatalf("a digest or sha256 source was pinned:\n%s", lock)
	}

	// An https:// plugin without its sha256 is refused, naming the file
	// and the plugin; nothing is fetched.
	os.WriteFile(cfg, []byte("[[plugin]]\nname = \"web\"\npath = \""+srv.URL+"/dl/echo.wasm\"\n"), 0o600)
	_, errOut, code := runCLI(t, "validate", "--config", cfg)
	if code == 0 || !strings.Contains(errOut, "mcpwasm.toml") || !strings.Contains(errOut, `"web"`) || !strings.Contains(errOut, "needs sha256") {
		t.Fatalf("https without sha256: exit %d\n%s", code, errOut)
	}
	_, errOut, code = runCLI(t, "call", srv.URL+"/dl/echo.wasm", "echo")
	if code == 0 || !strings.Contains(errOut, "needs its sha256") || !strings.Contains(errOut, srv.URL+"/dl/echo.wasm") {
		t.Fatalf("https argument without sha256: exit %d\n%s", code, errOut)
	}
}
