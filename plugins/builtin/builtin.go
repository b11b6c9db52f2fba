// Package builtin embeds the example plugins that `mcpwasm serve` runs when
// it is given no plugins. They are built from this repository's sources in
// plugins/ and checked byte for byte by CI.
package builtin

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

//go:embed wasm
var files embed.FS

// Plugin is one embedded plugin.
type Plugin struct {
	Name string // derived from the file name
	File string
	Wasm []byte
}

// Plugins returns the embedded plugins, sorted by file name.
func Plugins() []Plugin {
	entries, _ := fs.ReadDir(files, "wasm")
	var out []Plugin
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".wasm") {
			continue
		}
		b, err := files.ReadFile(path.Join("wasm", e.Name()))
		if err != nil {
			continue
		}
		out = append(out, Plugin{Name: strings.TrimSuffix(e.Name(), ".wasm"), File: e.Name(), Wasm: b})
	}
	return out
}
