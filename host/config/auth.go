package config

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strings"
)

// Auth holds the [server.auth] table: who may use the HTTP endpoint.
// Without tokens_file or [server.auth.oauth], HTTP is unauthenticated (and
// refused beyond loopback without --insecure-no-auth).
type Auth struct {
	// TokensFile lists static bearer tokens, "NAME TOKEN [SCOPE ...]" per
	// line (relative to the config file's folder).
	TokensFile string `toml:"tokens_file"`
	// Resource is this server's public URL, e.g.
	// "https://mcp.example.com/mcp": the audience JWTs must carry (RFC
	// 8707) and the resource of the RFC 9728 metadata.
	Resource string `toml:"resource"`
	// RequiredScopes must all be granted to every token (403 otherwise).
	RequiredScopes []string `toml:"required_scopes"`
	// OAuth accepts JWT access tokens from an authorization server.
	OAuth *OAuth `toml:"oauth"`
	// PluginScopes and ToolScopes map a plugin name, or an exposed tool
	// name, to the scope a token needs to see and call its tools.
	PluginScopes map[string]string `toml:"plugin_scopes"`
	ToolScopes   map[string]string `toml:"tool_scopes"`
}

// OAuth holds [server.auth.oauth].
type OAuth struct {
	// Issuer is the authorization server's issuer identifier ("iss").
	Issuer string `toml:"issuer"`
	// JWKSURL is where the issuer publishes its signing keys.
	JWKSURL string `toml:"jwks_url"`
	// Algorithms allow-lists JWS algorithms (default: the asymmetric ones).
	Algorithms []string `toml:"algorithms"`
	// ClockSkew is the leeway on exp and nbf (default 0).
	ClockSkew Duration `toml:"clock_skew"`
}

// Enabled reports whether any authentication is configured.
func (a Auth) Enabled() bool { return a.TokensFile != "" || a.OAuth != nil }

// Limits holds the [server.limits] table: how much one client may ask of
// the HTTP endpoint. Zero values take the defaults.
type Limits struct {
	// Rate is the requests per second allowed to one principal (a token's
	// name or subject; the client IP without authentication); default 100,
	// -1 for no bound. Burst is the bucket size (default 200).
	Rate  float64 `toml:"rate"`
	Burst int     `toml:"burst"`
	// SessionConcurrency and PrincipalConcurrency bound the requests
	// handled at once for one session (default 16) and one principal
	// (default 64).
	SessionConcurrency   int `toml:"session_concurrency"`
	PrincipalConcurrency int `toml:"principal_concurrency"`
	// PrincipalSessions bounds the stateful sessions one principal holds
	// at once (default 250), within [server] max_sessions.
	PrincipalSessions int `toml:"principal_sessions"`
	// TrustedProxies lists the addresses or CIDRs of the load balancers
	// whose X-Forwarded-For header names the client.
	TrustedProxies []string `toml:"trusted_proxies"`
}

// Proxies parses TrustedProxies: an address stands for itself alone.
func (l Limits) Proxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, p := range l.TrustedProxies {
		prefix, err := netip.ParsePrefix(p)
		if ip, ipErr := netip.ParseAddr(p); ipErr == nil {
			prefix, err = ip.Prefix(ip.BitLen())
		}
		if err != nil {
			return nil, fmt.Errorf("[server.limits] trusted_proxies: %q is neither an IP address nor a CIDR", p)
		}
		out = append(out, prefix.Masked())
	}
	return out, nil
}

func (s *Server) checkAccess() error {
	a := s.Auth
	if o := a.OAuth; o != nil {
		var missing []string
		if o.Issuer == "" {
			missing = append(missing, "issuer")
		}
		if o.JWKSURL == "" {
			missing = append(missing, "jwks_url")
		}
		if a.Resource == "" {
			missing = append(missing, "[server.auth] resource")
		}
		if len(missing) > 0 {
			return fmt.Errorf("[server.auth.oauth]: %s required", strings.Join(missing, ", "))
		}
		if o.ClockSkew.err != nil {
			return fmt.Errorf("[server.auth.oauth] clock_skew: %v", o.ClockSkew.err)
		}
	}
	if !a.Enabled() && (len(a.PluginScopes)+len(a.ToolScopes)+len(a.RequiredScopes) > 0) {
		return errors.New("[server.auth]: scopes are set but no tokens_file or [server.auth.oauth] authenticates anyone")
	}
	l := s.Limits
	switch {
	case math.IsNaN(l.Rate) || (l.Rate < 0 && l.Rate != -1):
		return fmt.Errorf("[server.limits] rate = %v: must be positive, or -1 for no bound", l.Rate)
	case l.Burst < 0 || l.SessionConcurrency < 0 || l.PrincipalConcurrency < 0 || l.PrincipalSessions < 0:
		return errors.New("[server.limits] burst, session_concurrency, principal_concurrency and principal_sessions must be positive")
	}
	_, err := l.Proxies()
	return err
}
