package lifecycle

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
