package bearer

import (
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Policy maps plugins and tools to the scope a token needs to see and call
// them. A tool needs its plugin's scope and its own, when they are set; a
// tool of a plugin with neither is open to every authenticated caller.
type Policy struct {
	// Plugins maps a plugin name to the scope its tools need.
	Plugins map[string]string
	// Tools maps an exposed tool name (as in tools/list) to the scope it
	// needs.
	Tools map[string]string
}

// Empty reports whether the policy requires no scope anywhere.
func (p Policy) Empty() bool { return len(p.Plugins) == 0 && len(p.Tools) == 0 }

// Missing returns the scope a token lacks for a plugin's tool, or "" when
// it may use it. A nil info (no authentication on this transport) may use
// everything.
func (p Policy) Missing(info *auth.TokenInfo, plugin, tool string) string {
	if info == nil {
		return ""
	}
	for _, s := range []string{p.Plugins[plugin], p.Tools[tool]} {
		if s != "" && !slices.Contains(info.Scopes, s) {
			return s
		}
	}
	return ""
}

// Scopes lists every scope the policy uses, for the RFC 9728
// scopes_supported.
func (p Policy) Scopes(extra ...string) []string {
	var out []string
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, s := range extra {
		add(s)
	}
	for _, s := range p.Plugins {
		add(s)
	}
	for _, s := range p.Tools {
		add(s)
	}
	slices.Sort(out)
	return out
}

// WellKnownPath is where RFC 9728 protected-resource metadata is served.
const WellKnownPath = "/.well-known/oauth-protected-resource"

// MetadataURL returns the RFC 9728 metadata URL of a resource: the
// well-known path inserted between its origin and its path
// (https://h/mcp → https://h/.well-known/oauth-protected-resource/mcp).
func MetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return ""
	}
	path := strings.TrimSuffix(u.Path, "/")
	return u.Scheme + "://" + u.Host + WellKnownPath + path
}

// Metadata returns the protected-resource metadata of a resource whose
// tokens come from issuer (none: static tokens only).
func Metadata(resource, issuer string, scopes []string) *oauthex.ProtectedResourceMetadata {
	m := &oauthex.ProtectedResourceMetadata{Resource: resource, ScopesSupported: scopes,
		BearerMethodsSupported: []string{"header"}}
	if issuer != "" {
		m.AuthorizationServers = []string{issuer}
	}
	return m
}
