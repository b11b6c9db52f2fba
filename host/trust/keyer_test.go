package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"
)

// TestKeyerLookup: BySource's key is the name and a digest of the
// absolute source; a plugin's own lines win, and a bare-name line (a lock
// file from before keys had the source) counts only for a plugin with
// none of its own.
func TestKeyerLookup(t *testing.T) {
	p := kit(t) // Source "kit.wasm", relative
	abs, _ := filepath.Abs("kit.wasm")
	sum := sha256.Sum256([]byte(abs))
	key := BySource(p)
	if key != "kit@"+hex.EncodeToString(sum[:6]) {
		t.Fatalf("BySource = %q", key)
	}
	if ByName(p) != "kit" || Keyer(nil).Of(p) != "kit" {
		t.Fatalf("ByName = %q", ByName(p))
	}
	own, legacy := Approved{{Kind: "tool", Name: "own"}: {}}, Approved{{Kind: "tool", Name: "legacy"}: {}}
	if got := Keyer(BySource).Lookup(map[string]Approved{key: own, "kit": legacy}, p); !has(got, "own") || has(got, "legacy") {
		t.Errorf("own lines: %v", got)
	}
	if got := Keyer(BySource).Lookup(map[string]Approved{"kit": legacy}, p); !has(got, "legacy") {
		t.Errorf("legacy lines: %v", got)
	}
	if got := Keyer(BySource).Lookup(map[string]Approved{"kit@000000000000": own}, p); got != nil {
		t.Errorf("another source's lines: %v", got)
	}
}

func has(a Approved, name string) bool {
	_, ok := a[Key{Kind: "tool", Name: name}]
	return ok
}
