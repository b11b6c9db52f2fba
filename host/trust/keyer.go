package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// A Keyer names a plugin's approvals in the lock file (the PLUGIN of its
// decl lines).
type Keyer func(*plugin.Plugin) string

// ByName keys approvals by the plugin's name: right where the names are
// the config's own, one lock file beside one config.
func ByName(p *plugin.Plugin) string { return p.Name() }

// BySource keys approvals by name and where the plugin comes from
// ("echo@3f1c0a9b2e7d": 12 hex digits of the SHA-256 of the absolute
// path, or of the oci:// or https:// reference). Config-less runs share
// the plugin store's lock file: two folders that each hold an echo.wasm
// are two plugins, not one whose declarations changed.
func BySource(p *plugin.Plugin) string {
	src := p.Config().Source
	if !strings.Contains(src, "://") {
		if abs, err := filepath.Abs(src); err == nil {
			src = abs
		}
	}
	sum := sha256.Sum256([]byte(src))
	return p.Name() + "@" + hex.EncodeToString(sum[:6])
}

// Of is k's key for p (ByName's when k is nil).
func (k Keyer) Of(p *plugin.Plugin) string {
	if k == nil {
		return ByName(p)
	}
	return k(p)
}

// Lookup returns p's approvals in all (ParseLines) under k's key, else
// under its bare name: the lines of a store lock file written before
// approvals were keyed by source still count for a plugin of that name
// with none of its own, so a changed plugin is held after an upgrade, not
// recorded afresh. What is approved from then on is written under k's key.
func (k Keyer) Lookup(all map[string]Approved, p *plugin.Plugin) Approved {
	if a, ok := all[k.Of(p)]; ok {
		return a
	}
	return all[p.Name()]
}
