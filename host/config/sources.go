package config

import (
	"fmt"
	"regexp"
	"strings"
)

// Sources is the [sources] table: how plugins named by oci:// and https://
// paths are fetched, stored and verified (see package source).
type Sources struct {
	// Store is the content-addressed plugin store (default: the user cache
	// folder's mcpwasm folder; see --store).
	Store string `toml:"store"`
	// Verify is the signature policy for every oci:// plugin that sets none:
	// "required", "if-signed" or "off" (default: "if-signed" when keys are
	// given, else "off").
	Verify string `toml:"verify"`
	// Keys are PEM public keys (cosign.pub) trusted for signatures,
	// relative to the config file's folder.
	Keys []string `toml:"keys"`
	// Signer is the keyless identity trusted for signatures.
	Signer
	// MaxSize bounds one plugin download (default 256MiB).
	MaxSize Size `toml:"max_size"`
	// Timeout bounds getting one plugin (default 5m).
	Timeout Duration `toml:"timeout"`
}

// Signer is whose Sigstore keyless signatures are trusted (binaries built
// with sigstore/build.sh): the certificate identity, exact or by regular
// expression, its OIDC issuer, and the trusted root file (relative to the
// config file's folder) that makes checking them work offline.
type Signer struct {
	Identity       string `toml:"identity"`
	IdentityRegexp string `toml:"identity_regexp"`
	Issuer         string `toml:"issuer"`
	TrustedRoot    string `toml:"trusted_root"`
}

// IsSet reports whether any keyless setting is given.
func (s Signer) IsSet() bool {
	return s.Identity != "" || s.IdentityRegexp != "" || s.Issuer != "" || s.TrustedRoot != ""
}

// isRemote reports whether a plugin path names a registry or URL
// (oci://, https://, http://) rather than a file.
func isRemote(path string) bool {
	l := strings.ToLower(path)
	return strings.HasPrefix(l, "oci://") || strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

var hexPin = regexp.MustCompile(`#sha256=[0-9a-fA-F]{64}$`)

// hasUserinfo reports whether a URL-like path carries user information
// ("scheme://USER:PASSWORD@host/…") before its first /, ? or #.
func hasUserinfo(path string) bool {
	_, rest, ok := strings.Cut(path, "://")
	if !ok {
		return false
	}
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	return strings.Contains(rest, "@")
}

// checkSource checks the source keys of one [[plugin]] table.
func checkSource(where string, p Plugin) error {
	l := strings.ToLower(p.Path)
	if isRemote(p.Path) && hasUserinfo(p.Path) {
		return fmt.Errorf("%s: path: credentials in a plugin source are refused (they would be logged); registries take the login in the Docker credential file", where)
	}
	switch {
	case strings.HasPrefix(l, "http://"):
		return fmt.Errorf("%s: path %q: plain http is refused; use https:// with a sha256", where, p.Path)
	case strings.HasPrefix(l, "https://") && p.SHA256 == "" && !hexPin.MatchString(p.Path):
		return fmt.Errorf("%s: path %q: an https:// plugin needs sha256 = \"<64 hex digits>\": without it anything the server sends would run", where, p.Path)
	}
	if err := checkVerify(where, p.Verify); err != nil {
		return err
	}
	if !strings.HasPrefix(l, "oci://") && (p.Verify != "" || len(p.Keys) > 0 || p.Signer.IsSet()) {
		return fmt.Errorf("%s: verify, keys and keyless settings apply to oci:// plugins only (a file or https:// plugin is pinned by its sha256)", where)
	}
	return nil
}

func checkVerify(where, v string) error {
	switch v {
	case "", "required", "if-signed", "off":
		return nil
	}
	return fmt.Errorf("%s: verify must be \"required\", \"if-signed\" or \"off\", not %q", where, v)
}

func (s Sources) check() error {
	if err := checkVerify("[sources]", s.Verify); err != nil {
		return err
	}
	if s.MaxSize.err != nil {
		return fmt.Errorf("[sources] max_size: %v", s.MaxSize.err)
	}
	if s.Timeout.err != nil {
		return fmt.Errorf("[sources] timeout: %v", s.Timeout.err)
	}
	if s.Timeout.set && s.Timeout.Duration <= 0 {
		return fmt.Errorf("[sources] timeout: must be positive")
	}
	return nil
}
