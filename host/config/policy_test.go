package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestPolicyTable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcpwasm.toml")
	if err := os.WriteFile(file, []byte("[server.policy]\nfiles = [\"p/a.cedar\", \"/abs/b.cedar\"]\nschema = \"s.cedarschema\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	files, schema := c.Server.Policy.Files, c.Server.Policy.Schema
	if !slices.Equal(files, []string{filepath.Join(dir, "p/a.cedar"), "/abs/b.cedar"}) || schema != filepath.Join(dir, "s.cedarschema") {
		t.Fatalf("%v %q", files, schema)
	}
	if !c.Server.Policy.Enabled() {
		t.Fatal("not enabled")
	}
	wantRefused(t, map[string]string{
		"[server.policy]\nschema = \"s\"\n":         "schema is set but no files",
		"[server.policy]\nfiles = [\"\"]\n":         "empty file name",
		"[server.policy]\nfiles = [\"a\"]\nx = 1\n": "line 3: unknown key",
		"[server.policy]\nfiles = \"a.cedar\"\n":    "line 2",
	})
}
