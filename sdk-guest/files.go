// Package sdkguest carries the guest SDKs' sources inside the mcpwasm binary.
//
// "mcpwasm new" copies one of them into every plugin folder it writes, as
// mcpwasm-sdk/, so that the folder builds on a machine without a checkout of
// this repository and without a package registry that has the SDKs.
//
// The Rust and AssemblyScript SDKs are embedded from their own folders. The
// Go SDK is a module of its own, which go:embed cannot read, so the binary
// embeds go.zip, an archive built from sdk-guest/go: go generate ./sdk-guest
// rebuilds it (TestGoArchiveMatches -update holds the one rule for what goes
// in), and TestGoArchiveMatches fails when it is not current. The archive is
// a build product, not a second copy of the sources to read or edit: edit
// sdk-guest/go.
package sdkguest

//go:generate go test -run ^TestGoArchiveMatches$ -update .

import (
	"archive/zip"
	"bytes"
	"embed"
	"io/fs"
)

//go:embed rust/Cargo.toml rust/README.md rust/src rust/examples
var rust embed.FS

//go:embed assemblyscript/package.json assemblyscript/README.md assemblyscript/index.ts
//go:embed assemblyscript/plugin.asconfig.json assemblyscript/embed-skill.mjs assemblyscript/assembly assemblyscript/testing
var assemblyScript embed.FS

//go:embed go.zip
var goSDK []byte

// Rust returns the Rust SDK crate (Cargo.toml at the root).
func Rust() fs.FS { return sub(rust, "rust") }

// AssemblyScript returns the AssemblyScript SDK package (package.json at the
// root).
func AssemblyScript() fs.FS { return sub(assemblyScript, "assemblyscript") }

// Go returns the Go SDK module. Its go.mod is stored as go.mod.txt; the
// copier renames it.
func Go() fs.FS {
	z, err := zip.NewReader(bytes.NewReader(goSDK), int64(len(goSDK)))
	if err != nil { // only for a corrupt archive, which TestGoArchiveMatches rules out
		panic(err)
	}
	return z
}

func sub(f fs.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil { // only for an invalid dir, which these constants are not
		panic(err)
	}
	return s
}
