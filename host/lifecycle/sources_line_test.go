package lifecycle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

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
