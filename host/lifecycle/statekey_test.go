package lifecycle

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateKey: the key comes from the flag's file, else the config's
// (relative to the config's folder), else the environment; a short key is
// refused naming where it came from; none at all means a random key (nil).
func TestStateKey(t *testing.T) {
	dir := t.TempDir()
	long, short := strings.Repeat("k", 40), "0123456789"
	os.WriteFile(filepath.Join(dir, "long.key"), []byte(long+"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "short.key"), []byte(short), 0o600)
	log := slog.New(slog.DiscardHandler)
	cfgFile := filepath.Join(dir, "mcpwasm.toml")

	t.Setenv(stateKeyEnv, "")
	if k, err := stateKey("", "", cfgFile, log); k != nil || err != nil {
		t.Fatalf("no key configured: %q %v", k, err)
	}
	if k, err := stateKey("", "long.key", cfgFile, log); err != nil || string(k) != long {
		t.Fatalf("config key relative to the config: %q %v", k, err)
	}
	if k, err := stateKey(filepath.Join(dir, "long.key"), "short.key", cfgFile, log); err != nil || string(k) != long {
		t.Fatalf("the flag wins over the config: %q %v", k, err)
	}
	if _, err := stateKey("", "short.key", cfgFile, log); err == nil || !strings.Contains(err.Error(), "short.key") || !strings.Contains(err.Error(), "10 bytes") {
		t.Fatalf("a short key: %v", err)
	}
	if _, err := stateKey("", "missing.key", cfgFile, log); err == nil || !strings.Contains(err.Error(), "missing.key") {
		t.Fatalf("a missing file: %v", err)
	}
	t.Setenv(stateKeyEnv, " "+long+" ")
	if k, err := stateKey("", "", cfgFile, log); err != nil || string(k) != long {
		t.Fatalf("from the environment: %q %v", k, err)
	}
	t.Setenv(stateKeyEnv, short)
	if _, err := stateKey("", "", cfgFile, log); err == nil || !strings.Contains(err.Error(), stateKeyEnv) {
		t.Fatalf("a short key in the environment: %v", err)
	}
}
