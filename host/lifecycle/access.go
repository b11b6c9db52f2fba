package lifecycle

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// accessOptions builds the HTTP authentication and limits from [server.auth]
// and [server.limits], and the scope policy. The JWKS is fetched once now
// (an unreachable issuer is logged, not fatal) and refreshed in the
// background until ctx ends. Serving addr beyond loopback without
// authentication is refused here, before anything loads.
func accessOptions(ctx context.Context, addr string, cfg *config.Config, insecure bool, logger *slog.Logger) (httpserve.AccessOptions, bearer.Policy, error) {
	a, l := cfg.Server.Auth, cfg.Server.Limits
	o := httpserve.AccessOptions{InsecureNoAuth: insecure, RequiredScopes: a.RequiredScopes, Rate: l.Rate, Burst: l.Burst,
		SessionConcurrency: l.SessionConcurrency, PrincipalConcurrency: l.PrincipalConcurrency, PrincipalSessions: l.PrincipalSessions}
	policy := bearer.Policy{Plugins: a.PluginScopes, Tools: a.ToolScopes}
	o.TrustedProxies, _ = l.Proxies() // checked by config.Parse
	var verifiers []auth.TokenVerifier
	if a.TokensFile != "" {
		toks, warning, err := bearer.LoadTokens(a.TokensFile)
		if err != nil {
			return o, policy, err
		}
		if warning != "" {
			logger.Warn(warning)
		}
		logger.Info("static bearer tokens loaded", "file", a.TokensFile, "tokens", toks.Len())
		verifiers = append(verifiers, toks.Verify)
	}
	var issuer string
	if oa := a.OAuth; oa != nil {
		v, err := bearer.NewJWT(ctx, bearer.OAuth{Issuer: oa.Issuer, JWKSURL: oa.JWKSURL, Resource: a.Resource,
			Algorithms: oa.Algorithms, ClockSkew: oa.ClockSkew.Duration, Logger: logger})
		if err != nil {
			return o, policy, fmt.Errorf("[server.auth.oauth]: %v", err)
		}
		issuer = oa.Issuer
		verifiers = append(verifiers, v.Verify)
	}
	if len(verifiers) > 0 {
		o.Verifier = bearer.Chain(verifiers...)
	}
	if a.Resource != "" {
		o.Metadata = bearer.Metadata(a.Resource, issuer, policy.Scopes(a.RequiredScopes...))
	}
	return o, policy, httpserve.CheckExposure(addr, o)
}
