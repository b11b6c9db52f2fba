package lifecycle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	dir := t.TempDir()
	fixture.Copy(t, "echo", filepath.Join(dir, "echo.wasm"))
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
		if h.logLine("config reloaded") == "" {
			t.Fatalf("not reloaded:\n%s", h.logs)
		}
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
	if h.logLine("back at the value in force", "[server] name") == "" {
		t.Fatalf("no line saying the name is back at its running value\n%s", h.logs)
	}
	reload("first", "one")
	if n := pending(); n != 1 {
		t.Fatalf("an unchanged name was logged as pending (%d lines)\n%s", n, h.logs)
	}
}
