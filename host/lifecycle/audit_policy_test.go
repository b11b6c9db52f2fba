package lifecycle

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/config"
)

// TestAuditFolderPolicy: the audit log's folder may have files created and
// written in it (the log is created again after rotation), not read; unless
// the folder holds something the server reads (here the config), which
// that right would let a compromised process rewrite: then only the file
// itself is writable.
func TestAuditFolderPolicy(t *testing.T) {
	dir, logs := t.TempDir(), t.TempDir()
	cfgFile := filepath.Join(dir, "mcpwasm.toml")
	if err := os.WriteFile(cfgFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{File: cfgFile}
	own := confinePolicy(confineInputs{cfg: cfg, cacheDir: "off", audit: filepath.Join(logs, "audit.log")})
	if !slices.Equal(own.CreateFiles, []string{logs}) {
		t.Fatalf("audit log in a folder of its own: CreateFiles = %v, want [%s]", own.CreateFiles, logs)
	}
	if !own.Allows(filepath.Join(logs, "audit.log"), true) || own.Allows(filepath.Join(logs, "other"), false) {
		t.Fatalf("the audit folder: a new audit.log must be writable, its files not readable")
	}
	shared := confinePolicy(confineInputs{cfg: cfg, cacheDir: "off", audit: filepath.Join(dir, "audit.log")})
	if len(shared.CreateFiles) != 0 || shared.Allows(cfgFile, true) {
		t.Fatalf("audit log beside the config: CreateFiles = %v, config writable %v", shared.CreateFiles, shared.Allows(cfgFile, true))
	}
	if _, by := auditFolder("/etc/mcpwasm-audit.log", nil); by == "" {
		t.Fatal("an audit log in /etc would make /etc writable")
	}
}
