package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadResolvesPaths: Load makes every relative path the config names
// relative to the config file's folder, once (nothing after it joins);
// absolute paths, remote plugin sources and "-" are kept. Parse, without a
// file, keeps paths as written.
func TestLoadResolvesPaths(t *testing.T) {
	dir := t.TempDir()
	text := `[server]
state_key_file = "keys/state.key"
[server.auth]
tokens_file = "tokens"
[server.audit]
file = "audit.jsonl"
[sources]
store = "store"
keys = ["cosign.pub", "/etc/abs.pub"]
identity = "me@example.com"
issuer = "https://issuer.example"
trusted_root = "root.json"
[[plugin]]
path = "plugins/echo.wasm"
[plugin.config]
secret = { file = "secret.txt" }
lit = "plain"
[[plugin.fs]]
path = "data"
[[plugin]]
name = "remote"
path = "oci://registry.example/p:1"
keys = ["p.pub"]
`
	cfgPath := filepath.Join(dir, "mcpwasm.toml")
	if err := os.WriteFile(cfgPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	in := func(rel string) string { return filepath.Join(dir, rel) }
	for got, want := range map[*string]string{
		&c.Server.StateKeyFile:    in("keys/state.key"),
		&c.Server.Auth.TokensFile: in("tokens"),
		&c.Server.Audit.File:      in("audit.jsonl"),
		&c.Sources.Store:          in("store"),
		&c.Sources.Keys[0]:        in("cosign.pub"),
		&c.Sources.Keys[1]:        "/etc/abs.pub",
		&c.Sources.TrustedRoot:    in("root.json"),
		&c.Plugins[0].Path:        in("plugins/echo.wasm"),
		&c.Plugins[0].FS[0].Path:  in("data"),
		&c.Plugins[1].Path:        "oci://registry.example/p:1",
		&c.Plugins[1].Keys[0]:     in("p.pub"),
	} {
		if *got != want {
			t.Errorf("got %q, want %q", *got, want)
		}
	}
	if v := c.Plugins[0].Config["secret"]; v.File != in("secret.txt") {
		t.Errorf("secret file %q", v.File)
	}
	if v := c.Plugins[0].Config["lit"]; v.Literal != "plain" || v.File != "" {
		t.Errorf("literal %+v", v)
	}

	stdout, err := Parse([]byte("[server.audit]\nfile = \"-\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	stdout.File = cfgPath
	stdout.resolvePaths()
	if stdout.Server.Audit.File != "-" {
		t.Errorf(`audit "-" became %q`, stdout.Server.Audit.File)
	}
	parsed, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Plugins[0].Path != "plugins/echo.wasm" {
		t.Errorf("Parse changed a path: %q", parsed.Plugins[0].Path)
	}
}
