package bearer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/internal/testissuer"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

const resource = "https://mcp.example.com/mcp"

func newJWT(t *testing.T, iss *testissuer.Issuer) *bearer.JWT {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v, err := bearer.NewJWT(ctx, bearer.OAuth{Issuer: iss.URL, JWKSURL: iss.JWKSURL, Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A valid token is accepted, its subject is the principal and its scopes
// are read; each broken property is refused with ErrInvalidToken and a
// reason naming it.
func TestJWTVerify(t *testing.T) {
	iss := testissuer.New(t)
	v := newJWT(t, iss)
	ctx := context.Background()
	good := iss.Claims("alice", resource, "tools:read echo")
	info, err := v.Verify(ctx, iss.Sign(t, good), nil)
	if err != nil {
		t.Fatalf("valid token refused: %v", err)
	}
	if info.UserID != "alice" || strings.Join(info.Scopes, " ") != "tools:read echo" || info.Expiration.IsZero() {
		t.Fatalf("token info %+v", info)
	}
	with := func(k string, val any) map[string]any {
		c := iss.Claims("alice", resource, "echo")
		if val == nil {
			delete(c, k)
		} else {
			c[k] = val
		}
		return c
	}
	hour := time.Hour
	for _, tc := range []struct {
		name, token, reason string
	}{
		{"expired", iss.Sign(t, with("exp", time.Now().Add(-hour).Unix())), "expired"},
		{"no exp", iss.Sign(t, with("exp", nil)), "exp"},
		{"not yet valid", iss.Sign(t, with("nbf", time.Now().Add(hour).Unix())), "not valid yet"},
		{"wrong audience", iss.Sign(t, with("aud", "https://other.example/mcp")), "aud"},
		{"wrong issuer", iss.Sign(t, with("iss", "https://evil.example")), "iss"},
		{"no subject", iss.Sign(t, with("sub", nil)), "subject"},
		{"wrong key", iss.SignWithOtherKey(t, good), "signature"},
		{"alg none", testissuer.Unsigned(t, good), "signature"},
		{"garbage", "not.a.jwt", "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := v.Verify(ctx, tc.token, nil)
			if err == nil {
				t.Fatalf("accepted: %+v", info)
			}
			if !errors.Is(err, auth.ErrInvalidToken) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("err %v, want ErrInvalidToken mentioning %q", err, tc.reason)
			}
		})
	}
}

// Settings that would weaken verification are refused up front.
func TestOAuthCheck(t *testing.T) {
	ok := bearer.OAuth{Issuer: "https://i.example", JWKSURL: "https://i.example/jwks", Resource: resource}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]bearer.OAuth{
		"none":        {Issuer: ok.Issuer, JWKSURL: ok.JWKSURL, Resource: resource, Algorithms: []string{"none"}},
		"hmac":        {Issuer: ok.Issuer, JWKSURL: ok.JWKSURL, Resource: resource, Algorithms: []string{"HS256"}},
		"no resource": {Issuer: ok.Issuer, JWKSURL: ok.JWKSURL},
		"relative":    {Issuer: ok.Issuer, JWKSURL: "/jwks", Resource: resource},
	} {
		if err := o.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Static tokens: the right one gives its name and scopes, a wrong or empty
// one is refused; the file format is checked line by line.
func TestStaticTokens(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens")
	os.WriteFile(path, []byte("# ops\nalice 0123456789abcdef0123 echo\n\nbob  fedcba9876543210fedc\n"), 0o600)
	toks, warn, err := bearer.LoadTokens(path)
	if err != nil || warn != "" || toks.Len() != 2 {
		t.Fatalf("LoadTokens: %v, %q, %v", toks, warn, err)
	}
	info, err := toks.Verify(context.Background(), "0123456789abcdef0123", nil)
	if err != nil || info.UserID != "alice" || len(info.Scopes) != 1 || info.Scopes[0] != "echo" {
		t.Fatalf("alice: %+v, %v", info, err)
	}
	if info, err := toks.Verify(context.Background(), "fedcba9876543210fedc", nil); err != nil || info.UserID != "bob" {
		t.Fatalf("bob: %+v, %v", info, err)
	}
	for _, bad := range []string{"0123456789abcdef0124", "", "alice"} {
		if _, err := toks.Verify(context.Background(), bad, nil); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("token %q: %v", bad, err)
		}
	}
	os.Chmod(path, 0o640) // the group may read (a Kubernetes secret's fsGroup)
	if _, warn, _ := bearer.LoadTokens(path); warn != "" {
		t.Errorf("a group-readable file: warning %q", warn)
	}
	os.Chmod(path, 0o644)
	if _, warn, _ := bearer.LoadTokens(path); !strings.Contains(warn, "readable by others") {
		t.Errorf("a world-readable file: warning %q", warn)
	}
	for text, want := range map[string]string{
		"alice\n":       "t:1: want",
		"alice short\n": "at least 16",
		"a 0123456789abcdef0123\na 1123456789abcdef0123\n": "t:2: the name \"a\" is already used on line 1",
		"a 0123456789abcdef0123\nb 0123456789abcdef0123\n": "same as on line 1",
		"# nothing\n": "no tokens",
	} {
		if _, err := bearer.ParseTokens(strings.NewReader(text), "t"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// The metadata URL inserts the well-known path before the resource's path.
func TestMetadataURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://mcp.example.com/mcp": "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		"https://mcp.example.com":     "https://mcp.example.com/.well-known/oauth-protected-resource",
		"http://h:8080/a/b/":          "http://h:8080/.well-known/oauth-protected-resource/a/b",
	} {
		if got := bearer.MetadataURL(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// A policy hides a tool whose plugin's or own scope the token lacks.
func TestPolicy(t *testing.T) {
	p := bearer.Policy{Plugins: map[string]string{"fs": "files"}, Tools: map[string]string{"fs_write": "write"}}
	tok := func(s ...string) *auth.TokenInfo { return &auth.TokenInfo{Scopes: s} }
	for _, tc := range []struct {
		info         *auth.TokenInfo
		plugin, tool string
		want         string
	}{
		{tok(), "echo", "echo", ""},
		{tok(), "fs", "fs_read", "files"},
		{tok("files"), "fs", "fs_read", ""},
		{tok("files"), "fs", "fs_write", "write"},
		{tok("files", "write"), "fs", "fs_write", ""},
		{nil, "fs", "fs_write", ""},
	} {
		if got := p.Missing(tc.info, tc.plugin, tc.tool); got != tc.want {
			t.Errorf("%v %s/%s: missing %q, want %q", tc.info, tc.plugin, tc.tool, got, tc.want)
		}
	}
}

// When the issuer rotates its key, a token naming the new key id makes the
// verifier fetch the JWKS again and is accepted; one signed by the retired
// key is refused.
func TestJWTKeyRotation(t *testing.T) {
	iss := testissuer.New(t)
	v := newJWT(t, iss)
	ctx := context.Background()
	old := iss.Sign(t, iss.Claims("alice", resource, ""))
	if _, err := v.Verify(ctx, old, nil); err != nil {
		t.Fatal(err)
	}
	iss.Rotate(t, "test-key-2")
	if _, err := v.Verify(ctx, iss.Sign(t, iss.Claims("alice", resource, "")), nil); err != nil {
		t.Fatalf("a token from the new key: %v", err)
	}
	if _, err := v.Verify(ctx, old, nil); err == nil {
		t.Fatal("a token from the retired key was accepted after the refresh")
	}
}
