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
