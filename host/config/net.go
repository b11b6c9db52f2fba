package config

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// NetGrant is one [[plugin.net]] table: hosts a plugin may reach over
// HTTP (see package netguard for the matching rules).
type NetGrant struct {
	// Hosts are exact names, "*.example.com" wildcards, IPs or CIDRs.
	Hosts []string `toml:"hosts"`
	// Ports allowed; empty: the scheme's default port.
	Ports []int `toml:"ports"`
	// Schemes "https" and "http"; empty: https only.
	Schemes []string `toml:"schemes"`
	// Methods allowed; empty: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS.
	Methods []string `toml:"methods"`
}

// Value is one [plugin.config] value: a literal string, or a secret read
// when the plugin loads from an environment variable ({ env = "NAME" }) or
// a file ({ file = "path" }, relative to the config file's folder; one
// trailing newline dropped). Secrets never appear in logs or messages.
type Value struct {
	Literal string
	Env     string
	File    string
}

// UnmarshalTOML accepts a string or a table with env or file.
func (v *Value) UnmarshalTOML(data any) error {
	switch d := data.(type) {
	case string:
		v.Literal = d
		return nil
	case map[string]any:
		for k, x := range d {
			s, ok := x.(string)
			switch {
			case !ok:
				return fmt.Errorf("config value: %s must be a string", k)
			case k == "env":
				v.Env = s
			case k == "file":
				v.File = s
			default:
				return fmt.Errorf("config value: unknown key %q (use a string, { env = \"NAME\" } or { file = \"path\" })", k)
			}
		}
		if (v.Env == "") == (v.File == "") {
			return fmt.Errorf("config value: give exactly one of env or file")
		}
		return nil
	}
	return fmt.Errorf("config value: %v is not a string, { env = \"NAME\" } or { file = \"path\" }", data)
}

// Resolve returns the plugin's guest config with every secret read: from
// the environment or from files (relative to the config file's folder:
// Load resolved them). An error names the key and where the secret should
// have been, never its value.
func (p Plugin) Resolve() (map[string]string, error) {
	if len(p.Config) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(p.Config))
	// In key order, so a config with several missing secrets names the
	// same one on every start.
	for _, k := range slices.Sorted(maps.Keys(p.Config)) {
		v := p.Config[k]
		switch {
		case v.Env != "":
			s, ok := os.LookupEnv(v.Env)
			if !ok {
				return nil, fmt.Errorf("[plugin.config] %s: environment variable %s is not set", k, v.Env)
			}
			out[k] = s
		case v.File != "":
			b, err := os.ReadFile(v.File) // Load made it relative to the config's folder
			if err != nil {
				return nil, fmt.Errorf("[plugin.config] %s: reading the secret file: %v", k, err)
			}
			out[k] = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		default:
			out[k] = v.Literal
		}
	}
	return out, nil
}

// Secret reports whether the key's value is read from the environment or a
// file, so that tools showing a config can hide it.
func (v Value) Secret() bool { return v.Env != "" || v.File != "" }

// String hides secrets: "$NAME" or "file:path" for them, the literal
// otherwise.
func (v Value) String() string {
	switch {
	case v.Env != "":
		return "$" + v.Env
	case v.File != "":
		return "file:" + v.File
	}
	return v.Literal
}
