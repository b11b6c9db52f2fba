package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// [plugin.config] values are strings or secrets from the environment or a
// file; [[plugin.net]] decodes; bad shapes are refused naming the line.
func TestPluginSecretsAndNet(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "key.txt"), []byte("from-file\n"), 0o600)
	t.Setenv("MCPWASM_TEST_SECRET", "from-env")
	cfgPath := filepath.Join(dir, "mcpwasm.toml")
	os.WriteFile(cfgPath, []byte(`[[plugin]]
path = "p.wasm"
net_max_requests = 3
net_max_response = "1MiB"
[plugin.config]
plain = "v"
env = { env = "MCPWASM_TEST_SECRET" }
file = { file = "key.txt" }
[[plugin.net]]
hosts = ["api.example.com"]
ports = [8443]
`), 0o600)
	c, err := Load(cfgPath) // the secret file is relative to the config's folder
	if err != nil {
		t.Fatal(err)
	}
	p := c.Plugins[0]
	if len(p.Net) != 1 || p.Net[0].Hosts[0] != "api.example.com" || p.Net[0].Ports[0] != 8443 || p.NetMaxRequests != 3 || p.NetMaxResponse.Bytes != 1<<20 {
		t.Fatalf("net: %+v", p)
	}
	got, err := p.Resolve()
	if err != nil || got["plain"] != "v" || got["env"] != "from-env" || got["file"] != "from-file" {
		t.Fatalf("resolved %v %v", got, err)
	}
	if s := p.Config["env"].String() + p.Config["file"].String(); strings.Contains(s, "from-") {
		t.Fatalf("String shows a secret: %s", s)
	}
	os.Unsetenv("MCPWASM_TEST_SECRET")
	if _, err := p.Resolve(); err == nil || !strings.Contains(err.Error(), "MCPWASM_TEST_SECRET is not set") {
		t.Fatalf("a missing variable: %v", err)
	}
	wantRefused(t, map[string]string{
		"[[plugin]]\npath = \"p.wasm\"\n[plugin.config]\nk = { env = 1 }\n":                   "must be a string",
		"[[plugin]]\npath = \"p.wasm\"\n[plugin.config]\nk = { env = \"A\", file = \"f\" }\n": "exactly one of env or file",
		"[[plugin]]\npath = \"p.wasm\"\n[plugin.config]\nk = { vault = \"x\" }\n":             "unknown key",
		"[[plugin]]\npath = \"p.wasm\"\nnet_max_response = \"lots\"\n":                        "net_max_response",
	})
}
