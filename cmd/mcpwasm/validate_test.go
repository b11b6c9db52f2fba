package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestValidateCommand: `mcpwasm validate` loads what serve would and says
// so on stdout with exit 0; a config error names the file and line, a
// plugin that fails names the plugin, and both exit non-zero, on stderr,
// without serving (it returns).
func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return fixture.File(t, dir, name, text) }
	good := write("good.toml", "[[plugin]]\npath = \""+fixture.Path(t, "echo")+"\"\n")
	out, errOut, code := runCLI(t, "validate", "--config", good)
	if code != 0 || !strings.Contains(out, "echo") {
		t.Fatalf("a good config: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	bad := write("bad.toml", "[server]\nname = \"x\"\nbogus_key = 1\n")
	out, errOut, code = runCLI(t, "validate", "--config", bad)
	if code == 0 || !strings.Contains(errOut, "bad.toml") || !strings.Contains(errOut, "line 3") || out != "" {
		t.Fatalf("an unknown key: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	broken := write("broken.toml", "[[plugin]]\npath = \""+fixture.Path(t, "bad_tools")+"\"\n[[plugin]]\npath = \""+fixture.Path(t, "echo")+"\"\n")
	_, errOut, code = runCLI(t, "validate", "--config", broken)
	if code == 0 || !strings.Contains(errOut, "bad_tools") {
		t.Fatalf("a plugin that fails to load: exit %d\nstderr: %s", code, errOut)
	}
}

// TestValidateAgreesWithServe: validate exited 0 for a config whose
// tokens_file or state_key_file was missing, which serve then refused with
// exit 2. Everything serve checks before serving is now checked: files and
// keys, listen addresses, the audit log; an unreachable JWKS is a warning
// (serve starts and logs it).
func TestValidateAgreesWithServe(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return fixture.File(t, dir, name, text) }
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

// TestValidateBusyAddress: validate passed while serve could not start on
// a taken address. A busy http or admin address is now reported as a
// warning naming the address (exit 0: an operator often validates the
// config of the server that holds it); a free one says nothing.
func TestValidateBusyAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().String()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	free.Close()
	dir := t.TempDir()
	write := func(name, text string) string { return fixture.File(t, dir, name, text) }
	plugin := "[[plugin]]\npath = \"" + fixture.Path(t, "echo") + "\"\n"
	for _, c := range []struct {
		name, config string
		warn         bool
	}{
		{"http busy", "[server]\nhttp = \"" + busy + "\"\n" + plugin, true},
		{"admin busy", "[server]\nadmin = \"" + busy + "\"\n" + plugin, true},
		{"free", "[server]\nhttp = \"" + freeAddr + "\"\n" + plugin, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := write(strings.ReplaceAll(c.name, " ", "_")+".toml", c.config)
			_, errOut, code := runCLI(t, "validate", "--config", cfg)
			if code != 0 {
				t.Fatalf("exit %d, want 0:\n%s", code, errOut)
			}
			warned := strings.Contains(errOut, "warning:") && strings.Contains(errOut, "in use")
			if warned != c.warn {
				t.Fatalf("warned about a busy address: %v, want %v:\n%s", warned, c.warn, errOut)
			}
			if c.warn && !strings.Contains(errOut, busy) {
				t.Fatalf("the warning does not name %s:\n%s", busy, errOut)
			}
		})
	}
}
