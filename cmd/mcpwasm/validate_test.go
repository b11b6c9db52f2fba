package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// fileWriter returns a function writing a file of text into dir (mode
// 0600) and returning its path.
func fileWriter(t *testing.T, dir string) func(name, text string) string {
	return func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// TestValidateCommand: `mcpwasm validate` loads what serve would and says
// so on stdout with exit 0; a config error names the file and line, a
// plugin that fails names the plugin, and both exit non-zero, on stderr,
// without serving (it returns).
func TestValidateCommand(t *testing.T) {
	write := fileWriter(t, t.TempDir())
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
