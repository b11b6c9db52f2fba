package entity_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/policy"
	"github.com/mcpwasm/mcpwasm/host/policy/entity"
	"github.com/mcpwasm/mcpwasm/internal/testissuer"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

const resource = "https://mcp.example.com/mcp"

// TestPrincipalFromJWT: a verified JWT's groups, issuer and claims reach
// the principal, and a policy on each of them decides.
func TestPrincipalFromJWT(t *testing.T) {
	iss := testissuer.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := bearer.NewJWT(ctx, bearer.OAuth{Issuer: iss.URL, JWKSURL: iss.JWKSURL, Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	c := iss.Claims("sam", resource, "mcp")
	c["groups"] = []string{"support", "eng"}
	c["dept"] = "ops"
	c["level"] = 3
	info, err := v.Verify(ctx, iss.Sign(t, c), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := entity.Principal(info, "http")
	if p.Name != "sam" || p.Auth != "jwt" || p.Issuer != iss.URL || p.Transport != "http" ||
		!slices.Equal(p.Groups, []string{"support", "eng"}) || p.Claims["dept"] != "ops" || !slices.Equal(p.Scopes, []string{"mcp"}) {
		t.Fatalf("%+v", p)
	}
	set, err := policy.Parse(policy.Document{Name: "p.cedar", Text: []byte(`
@id("g") permit(principal in Group::"support", action, resource) when { principal.issuer == "` + iss.URL + `" };
@id("c") forbid(principal, action, resource) when { principal.hasTag("level") && principal.getTag("level") == "3" && principal.getTag("dept") == "sales" };
`)})
	if err != nil {
		t.Fatal(err)
	}
	req := policy.Request{Principal: p, Action: policy.CallTool, Target: policy.Target{Type: policy.TypeTool, Name: "t"}}
	if d := set.Authorize(req); !d.Allow || !slices.Equal(d.Policies, []string{"g"}) {
		t.Fatalf("%+v", d)
	}
	p.Claims["dept"] = "sales"
	if d := set.Authorize(req); d.Allow {
		t.Fatalf("claim forbid ignored: %+v", d)
	}
}

func TestPrincipalWithoutToken(t *testing.T) {
	if p := entity.Principal(nil, "stdio"); p.Name != policy.StdioName || p.Auth != "none" {
		t.Fatalf("%+v", p)
	}
	if p := entity.Principal(nil, "http"); p.Name != policy.AnonymousName || p.Transport != "http" {
		t.Fatalf("%+v", p)
	}
	info := &auth.TokenInfo{UserID: "ci", Scopes: []string{"a"}, Extra: map[string]any{"kind": "static"}}
	if p := entity.Principal(info, "http"); p.Name != "ci" || p.Auth != "static" || p.Issuer != "" || len(p.Groups) != 0 {
		t.Fatalf("%+v", p)
	}
}
