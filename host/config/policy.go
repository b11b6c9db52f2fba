package config

import (
	"errors"
	"path/filepath"
)

// Policy holds the [server.policy] table: Cedar policies deciding who may
// call, read and get what (docs/security.md, "Policy").
type Policy struct {
	// Files are the policy files (Cedar text), relative to the config
	// file's folder; read at start and on every reload.
	Files []string `toml:"files"`
	// Schema, optional, is a Cedar schema file every policy must match
	// (Cedar text, or JSON when it ends in .json).
	Schema string `toml:"schema"`
}

// Enabled reports whether policies are configured.
func (p Policy) Enabled() bool { return len(p.Files) > 0 }

// Paths returns the files and the schema, relative paths joined to the
// folder of the config file at cfgFile.
func (p Policy) Paths(cfgFile string) (files []string, schema string) {
	join := func(f string) string {
		if f == "" || filepath.IsAbs(f) || cfgFile == "" {
			return f
		}
		return filepath.Join(filepath.Dir(cfgFile), f)
	}
	for _, f := range p.Files {
		files = append(files, join(f))
	}
	return files, join(p.Schema)
}

func (p Policy) check() error {
	for _, f := range p.Files {
		if f == "" {
			return errors.New("[server.policy] files: an empty file name")
		}
	}
	if p.Schema != "" && len(p.Files) == 0 {
		return errors.New("[server.policy] schema is set but no files are")
	}
	return nil
}
