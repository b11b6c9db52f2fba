package lifecycle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestReloadLogsFileDigest: `plugin reloaded` and `plugin added` carry the
// sha256 of the plugin's file, the digest the audit log and validate show
// (before, the first 12 digits of a hash of the file and its settings).
func TestReloadLogsFileDigest(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.wasm")
	fixture.Copy(t, "echo", p)
	h := serveInProcess(t, "", dir)
	digest := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:])
	}
	fixture.Copy(t, "constant", p)
	h.rescan(p)
	if line := h.logLine("plugin reloaded", p); !strings.Contains(line, "sha256="+digest(p)+" ") && !strings.HasSuffix(line, "sha256="+digest(p)) {
		t.Fatalf("plugin reloaded does not carry the file's sha256 %s: %q\nlog:\n%s", digest(p), line, h.logs)
	}
	q := filepath.Join(dir, "q.wasm")
	fixture.Copy(t, "echo", q)
	h.rescan(q)
	if line := h.logLine("plugin added", q); !strings.Contains(line, "sha256="+digest(q)) {
		t.Fatalf("plugin added does not carry the file's sha256 %s: %q", digest(q), line)
	}
}

// TestRestartOnlyComparedWithRunning: a restart-only setting is compared
// with the value the process runs with, not with the previous file: changed,
// it is logged once as taking effect at the next start (not again at each
// later reload); changed back to its running value, it is not logged as
// pending, and the log says it is back.
func TestRestartOnlyComparedWithRunning(t *testing.T) {
	dir := fixture.Folder(t, "echo")
	cfg := filepath.Join(dir, "mcpwasm.toml")
	write := func(name, plugin string) {
		text := "[server]\nname = \"" + name + "\"\n\n[[plugin]]\nname = \"" + plugin + "\"\npath = \"echo.wasm\"\n"
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("first", "one")
	h := serveInProcess(t, cfg)
	pending := func() int { return strings.Count(h.logs.String(), "takes effect at the next start") }
	reload := func(name, plugin string) {
		t.Helper()
		write(name, plugin)
		h.r.reloadConfig(context.Background(), "SIGHUP")
		h.wantLog("config reloaded")
	}
	reload("second", "one")
	if n := pending(); n != 1 || h.logLine("takes effect at the next start", "[server] name") == "" {
		t.Fatalf("a changed name: %d lines saying it takes effect at the next start, want 1\n%s", n, h.logs)
	}
	reload("second", "two") // another change; the name is still pending: not logged again
	if n := pending(); n != 1 {
		t.Fatalf("the same pending name was logged again (%d lines)\n%s", n, h.logs)
	}
	reload("first", "two") // back to the running value
	if n := pending(); n != 1 {
		t.Fatalf("a name changed back to its running value was logged as pending (%d lines)\n%s", n, h.logs)
	}
	h.wantLog("back at the value in force", "[server] name")
	reload("first", "one")
	if n := pending(); n != 1 {
		t.Fatalf("an unchanged name was logged as pending (%d lines)\n%s", n, h.logs)
	}
}

// TestMissingPluginFileNamesLine: a [[plugin]] whose file is missing is
// reported with the config file and the line of its path (before: the
// file only).
func TestMissingPluginFileNamesLine(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "mcpwasm.toml")
	text := "[server]\nname = \"x\"\n\n[[plugin]]\nname = \"gone\"\npath = \"missing.wasm\"\n"
	if err := os.WriteFile(cfgFile, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	_, problems := Collect(nil, cfg, plugin.Config{}, false, nil)
	if len(problems) != 1 || !strings.HasPrefix(problems[0].Error(), cfgFile+": line 6: [[plugin]] \""+filepath.Join(dir, "missing.wasm")+"\"") ||
		!strings.Contains(problems[0].Error(), "no such file") {
		t.Fatalf("problems = %v", problems)
	}
}

// TestLimitFlagsChecked: the size flags are parsed and checked against the
// config's ranges, an error naming the flag; a flag not given leaves the
// config's value.
func TestLimitFlagsChecked(t *testing.T) {
	cfg := &config.Config{}
	for _, c := range []struct {
		l    Limits
		want string
	}{
		{Limits{Memory: "1KiB", Given: map[string]bool{"memory": true}}, "--memory: 1KiB is out of range"},
		{Limits{MaxOutput: "0", Given: map[string]bool{"max-output": true}}, "--max-output: 0 bytes is out of range"},
		{Limits{MaxOutput: "lots", Given: map[string]bool{"max-output": true}}, "--max-output: "},
		{Limits{Budget: "1MiB"}, "--memory-budget: 1MiB is too small"},
	} {
		if _, err := c.l.Defaults(cfg); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.l, err, c.want)
		}
	}
	d, err := (&Limits{Memory: "8MiB", MaxOutput: "3MiB", Budget: "0", Given: map[string]bool{"memory": true, "max-output": true}}).Defaults(cfg)
	if err != nil || d.MemoryLimit != 8<<20 || d.MaxOutput != 3<<20 {
		t.Fatalf("8MiB, 3MiB: %+v %v", d, err)
	}
	d, err = (&Limits{Memory: "1KiB", Budget: "0"}).Defaults(cfg)
	if err != nil || d.MemoryLimit != 0 {
		t.Fatalf("--memory not given: %+v %v", d, err)
	}
}

// TestStateKey: the key comes from the flag's file, else the config's
// (config.Load made it relative to the config's folder), else the environment; a short key is
// refused naming where it came from; none at all means a random key (nil).
func TestStateKey(t *testing.T) {
	dir := t.TempDir()
	long, short := strings.Repeat("k", 40), "0123456789"
	os.WriteFile(filepath.Join(dir, "long.key"), []byte(long+"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "short.key"), []byte(short), 0o600)
	log := slog.New(slog.DiscardHandler)
	at := func(name string) string { return filepath.Join(dir, name) } // as config.Load resolves it

	t.Setenv(stateKeyEnv, "")
	if k, err := stateKey("", "", log); k != nil || err != nil {
		t.Fatalf("no key configured: %q %v", k, err)
	}
	if k, err := stateKey("", at("long.key"), log); err != nil || string(k) != long {
		t.Fatalf("config key relative to the config: %q %v", k, err)
	}
	if k, err := stateKey(filepath.Join(dir, "long.key"), at("short.key"), log); err != nil || string(k) != long {
		t.Fatalf("the flag wins over the config: %q %v", k, err)
	}
	if _, err := stateKey("", at("short.key"), log); err == nil || !strings.Contains(err.Error(), "short.key") || !strings.Contains(err.Error(), "10 bytes") {
		t.Fatalf("a short key: %v", err)
	}
	if _, err := stateKey("", at("missing.key"), log); err == nil || !strings.Contains(err.Error(), "missing.key") {
		t.Fatalf("a missing file: %v", err)
	}
	t.Setenv(stateKeyEnv, " "+long+" ")
	if k, err := stateKey("", "", log); err != nil || string(k) != long {
		t.Fatalf("from the environment: %q %v", k, err)
	}
	t.Setenv(stateKeyEnv, short)
	if _, err := stateKey("", "", log); err == nil || !strings.Contains(err.Error(), stateKeyEnv) {
		t.Fatalf("a short key in the environment: %v", err)
	}
}
