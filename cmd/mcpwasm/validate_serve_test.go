package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestValidateAgreesWithServe: validate exited 0 for a config whose
// tokens_file or state_key_file was missing, which serve then refused with
// exit 2. Everything serve checks before serving is now checked: files and
// keys, listen addresses, the audit log; an unreachable JWKS is a warning
// (serve starts and logs it).
func TestValidateAgreesWithServe(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	plugin := "[[plugin]]\npath = \"" + fixture.Path(t, "echo") + "\"\n"
	write("tokens", "ops 0123456789abcdef0123\n")
	write("state.key", strings.Repeat("k", 64)+"\n")
	for _, c := range []struct {
		name, config string
		args         []string
		code         int
		want         string
	}{
		{"all present", "[server]\nhttp = \"127.0.0.1:0\"\nstate_key_file = \"state.key\"\n[server.auth]\ntokens_file = \"tokens\"\n" + plugin, nil, 0, ""},
		{"missing tokens_file", "[server]\nhttp = \"127.0.0.1:0\"\n[server.auth]\ntokens_file = \"nope\"\n" + plugin, nil, 1, "nope"},
		{"missing state_key_file", "[server]\nstate_key_file = \"absent.key\"\n" + plugin, nil, 1, "absent.key"},
		{"missing --state-key-file", plugin, []string{"--state-key-file", filepath.Join(dir, "gone.key")}, 1, "gone.key"},
		{"short state key", "[server]\nstate_key_file = \"tokens\"\n" + plugin, nil, 1, "at least 32"},
		{"bad listen port", "[server]\nhttp = \"127.0.0.1:99999\"\n" + plugin, nil, 1, "99999"},
		{"bad --http", plugin, []string{"--http", "localhost"}, 1, "HOST:PORT"},
		{"bad admin address", "[server]\nadmin = \"::1::\"\n" + plugin, nil, 1, "admin"},
		{"audit log in a missing folder", "[server.audit]\nfile = \"no/such/dir/audit.log\"\n" + plugin, nil, 1, "audit log"},
		{"public address without auth", "[server]\nhttp = \"0.0.0.0:8080\"\n" + plugin, nil, 1, "auth"},
		{"unreachable JWKS", "[server]\nhttp = \"127.0.0.1:0\"\n[server.auth]\nresource = \"https://mcp.example.com/mcp\"\n[server.auth.oauth]\nissuer = \"https://issuer.example.com\"\njwks_url = \"http://127.0.0.1:1/jwks.json\"\n" + plugin, nil, 0, "warning"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := write(strings.ReplaceAll(c.name, " ", "_")+".toml", c.config)
			_, errOut, code := runCLI(t, append([]string{"validate", "--config", cfg}, c.args...)...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, want %d with %q on stderr:\n%s", code, c.code, c.want, errOut)
			}
		})
	}
}
