package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/fingerprint"
	"github.com/mcpwasm/mcpwasm/host/trust"
	"github.com/mcpwasm/mcpwasm/host/trust/trusttest"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRefreshHeld: a list the plugin refreshes at run time is vetted like
// one read at load: a declaration whose fingerprint no longer matches the
// approved one is withdrawn (not listed), and a call to it is told it is
// held.
func TestRefreshHeld(t *testing.T) {
	dir := fixture.Folder(t, "list_changed")
	lock := &trusttest.MemStore{}
	h := serveWithTrust(t, trust.New(trust.Options{Store: lock}), "", dir)
	h.wantTools("at start", "list_changed_list_changed")
	if len(lock.Lines("list_changed")) != 1 {
		t.Fatalf("first use not recorded: %v", lock.Decls())
	}
	// The approval now names another version of the tool.
	other, _ := fingerprint.OfJSON([]byte(`{"name":"list_changed_list_changed","description":"the version approved","inputSchema":{"type":"object"}}`))
	lock.SetDecls("list_changed", []string{trust.FormatLine("list_changed", trust.Key{Kind: fingerprint.Tool, Name: "list_changed_list_changed"}, other)})
	h.c.refresh(h.c.reg.Plugins()[0])
	if got := h.tools(); got != "" {
		t.Fatalf("a held declaration is listed after a refresh: %q", got)
	}
	_, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_changed_list_changed", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "is held") || !strings.Contains(err.Error(), "mcpwasm trust") {
		t.Fatalf("a call to the held tool: %v", err)
	}
	msg, ok := h.c.held("tool", "list_changed_list_changed")
	if !ok || !strings.Contains(msg, "is held") || !strings.Contains(msg, "description changed") {
		t.Fatalf("held = %v %q", ok, msg)
	}
}

// TestServerSecrets: the server's own secrets are known: the state key,
// the tokens file's tokens, the task store's password, the OTLP headers.
func TestServerSecrets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tokens"), []byte("# comment\nops tok-ops-0123456789 admin\nci tok-ci-9876543210\n"), 0o600)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20otlp-secret-42,x-other=v2long")
	cfg := &config.Config{File: filepath.Join(dir, "mcpwasm.toml")}
	cfg.Server.Auth.TokensFile = "tokens"
	got := serverSecrets(cfg, []byte("state-key-0123456789abcdef0123456789"), "redis://user:redis-pass-77@redis:6379/0")
	want := []string{"state-key-0123456789abcdef0123456789", "tok-ops-0123456789", "tok-ci-9876543210", "redis-pass-77", "Bearer otlp-secret-42", "v2long"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
