package config

import "errors"

// Policy holds the [server.policy] table: Cedar policies deciding who may
// call, read and get what (docs/security.md, "Policy").
type Policy struct {
	// Files are the policy files (Cedar text), written relative to the
	// config file's folder (Load joins them); read at start and on every
	// reload.
	Files []string `toml:"files"`
	// Schema, optional, is a Cedar schema file every policy must match
	// (Cedar text, or JSON when it ends in .json).
	Schema string `toml:"schema"`
}

// Enabled reports whether policies are configured.
func (p Policy) Enabled() bool { return len(p.Files) > 0 }

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
