package config

import (
	"testing"
	"time"
)

// [server.auth] and [server.limits] decode; incomplete or contradictory
// settings are refused with the table named.
func TestServerAuthKeys(t *testing.T) {
	c, err := Parse([]byte(`[server]
http = "0.0.0.0:8443"
[server.auth]
tokens_file = "tokens"
resource = "https://mcp.example.com/mcp"
required_scopes = ["mcp"]
[server.auth.oauth]
issuer = "https://auth.example.com/"
jwks_url = "https://auth.example.com/jwks.json"
algorithms = ["ES256"]
clock_skew = "30s"
[server.auth.plugin_scopes]
fs = "files"
[server.auth.tool_scopes]
echo_echo = "echo"
[server.limits]
rate = 5.5
burst = 10
session_concurrency = 2
principal_concurrency = 4
trusted_proxies = ["10.0.0.0/8", "192.0.2.7", "::ffff:0:0/96"]
`))
	if err != nil {
		t.Fatal(err)
	}
	a, l := c.Server.Auth, c.Server.Limits
	if !a.Enabled() || a.TokensFile != "tokens" || a.OAuth.Issuer != "https://auth.example.com/" || a.OAuth.ClockSkew.Duration != 30*time.Second ||
		a.PluginScopes["fs"] != "files" || a.ToolScopes["echo_echo"] != "echo" || l.Rate != 5.5 || l.Burst != 10 ||
		l.SessionConcurrency != 2 || l.PrincipalConcurrency != 4 {
		t.Fatalf("decoded %+v %+v", a, l)
	}
	if p, err := l.Proxies(); err != nil || len(p) != 3 || p[1].String() != "192.0.2.7/32" {
		t.Fatalf("trusted proxies %v %v", p, err)
	}
	wantRefused(t, map[string]string{
		"[server.auth.oauth]\nissuer = \"https://a\"\n":                  "jwks_url, [server.auth] resource required",
		"[server.auth.plugin_scopes]\nfs = \"files\"\n":                  "no tokens_file",
		"[server.limits]\nrate = -2\n":                                   "rate",
		"[server.limits]\nburst = -1\n":                                  "burst",
		"[server.limits]\ntrusted_proxies = [\"lb.local\"]\n":            "\"lb.local\" is neither an IP address nor a CIDR",
		"[server.auth]\ntoken_file = \"x\"\n":                            "unknown key",
		"[server.auth]\ntokens_file = \"t\"\n[server.auth.oauth]\nx=1\n": "unknown key",
	})
}
