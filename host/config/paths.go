package config

import (
	"path/filepath"
	"strings"
)

// resolvePaths makes every relative path the config names relative to the
// config file's folder, once, as Load reads the file: plugin files, their
// folders and secret files, keys and trusted roots, the store, the tokens
// file, the audit log, the state key file and the policy files and schema. Everything after Load reads
// them as they are. A config parsed without a file (Parse) keeps its paths as
// written, relative to the working folder. Not paths: an oci:// or https://
// plugin source, and "-" (the audit log on stdout).
func (c *Config) resolvePaths() {
	j := func(p *string) { *p = c.Join(*p) }
	for i := range c.Plugins {
		p := &c.Plugins[i]
		if !remote(p.Path) {
			j(&p.Path)
		}
		for k := range p.FS {
			j(&p.FS[k].Path)
		}
		for k, v := range p.Config {
			if v.File != "" {
				j(&v.File)
				p.Config[k] = v
			}
		}
		for k := range p.Keys {
			j(&p.Keys[k])
		}
		j(&p.Signer.TrustedRoot)
	}
	j(&c.Sources.Store)
	for k := range c.Sources.Keys {
		j(&c.Sources.Keys[k])
	}
	j(&c.Sources.Signer.TrustedRoot)
	j(&c.Server.Auth.TokensFile)
	if c.Server.Audit.File != "-" {
		j(&c.Server.Audit.File)
	}
	j(&c.Server.StateKeyFile)
	for k := range c.Server.Policy.Files {
		j(&c.Server.Policy.Files[k])
	}
	j(&c.Server.Policy.Schema)
}

// remote reports whether a plugin path is a source to fetch (package
// source's IsRemote), not a file.
func remote(path string) bool {
	l := strings.ToLower(path)
	return strings.HasPrefix(l, "oci://") || strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

// Join makes a path written in the config relative to the config file's
// folder (Load has done so for every path the config names).
func (c *Config) Join(path string) string {
	if path == "" || filepath.IsAbs(path) || c.File == "" {
		return path
	}
	return filepath.Join(filepath.Dir(c.File), path)
}
