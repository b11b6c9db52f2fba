package bearer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// DefaultAlgorithms are the JWS algorithms accepted when OAuth sets none:
// asymmetric ones only, since the keys come from a public JWKS.
var DefaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// OAuth configures an OAuth 2.1 resource server.
type OAuth struct {
	// Issuer is the authorization server's issuer identifier; a token's
	// "iss" must equal it.
	Issuer string
	// JWKSURL is where the issuer publishes its signing keys.
	JWKSURL string
	// Resource is this server's resource URL (RFC 8707); a token's "aud"
	// must contain it.
	Resource string
	// Algorithms allow-lists the JWS algorithms (default
	// DefaultAlgorithms); "none" and HMAC algorithms are refused.
	Algorithms []string
	// ClockSkew is the leeway allowed on exp, nbf and iat.
	ClockSkew time.Duration
	// Client fetches the JWKS (default: a client with a 10s timeout).
	Client *http.Client
	// Logger receives JWKS refresh failures.
	Logger *slog.Logger
}

// JWT verifies OAuth access tokens that are JWTs.
type JWT struct {
	o      OAuth
	keys   keyfunc.Keyfunc
	parser *jwt.Parser
}

// Check validates the settings without fetching anything.
func (o *OAuth) Check() error {
	for name, v := range map[string]string{"issuer": o.Issuer, "jwks_url": o.JWKSURL, "resource": o.Resource} {
		if v == "" {
			return fmt.Errorf("oauth: %s is required", name)
		}
		u, err := url.Parse(v)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("oauth: %s %q is not an absolute URL", name, v)
		}
	}
	for _, a := range o.Algorithms {
		if strings.EqualFold(a, "none") || strings.HasPrefix(strings.ToUpper(a), "HS") {
			return fmt.Errorf("oauth: algorithm %q is not allowed (only asymmetric signatures are, from the JWKS)", a)
		}
		if !slices.Contains(DefaultAlgorithms, a) {
			return fmt.Errorf("oauth: unknown algorithm %q (known: %s)", a, strings.Join(DefaultAlgorithms, ", "))
		}
	}
	return nil
}

// NewJWT starts a verifier: it fetches the JWKS now (waiting at most 10
// seconds) and then refreshes it in the background hourly, and when a token
// names an unknown key id (at most every five minutes), until ctx ends. An
// issuer that cannot be reached is logged as an error and NewJWT returns
// the verifier anyway: tokens are refused until a refresh succeeds.
func NewJWT(ctx context.Context, o OAuth) (*JWT, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if len(o.Algorithms) == 0 {
		o.Algorithms = DefaultAlgorithms
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	logger := o.Logger
	keys, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{o.JWKSURL}, keyfunc.Override{
		Client:      o.Client,
		HTTPTimeout: 10 * time.Second,
		// A token naming an unknown key refreshes the JWKS at most every 5
		// minutes; a request waits at most this long for its turn (and the
		// fetch), instead of keyfunc's minute, so forged kids cannot hold
		// requests long.
		RateLimitWaitMax: 10 * time.Second,
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(_ context.Context, err error) {
				logger.Error("could not fetch the issuer's JWKS", "url", u, "err", err)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("oauth: jwks_url %s: %v", o.JWKSURL, err)
	}
	parser := jwt.NewParser(
		jwt.WithValidMethods(o.Algorithms),
		jwt.WithIssuer(o.Issuer),
		jwt.WithAudience(o.Resource),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(o.ClockSkew),
	)
	return &JWT{o: o, keys: keys, parser: parser}, nil
}

// claims are the claims read from an access token.
type claims struct {
	jwt.RegisteredClaims
	// Scope is the space-separated scope claim (RFC 9068); Scp is the
	// array some issuers send instead.
	Scope string `json:"scope"`
	Scp   any    `json:"scp"`
}

// Verify checks a JWT access token: signature by a key of the JWKS, with
// an allowed algorithm; exp (required) and nbf; iss; aud containing the
// resource. The subject is the principal.
func (j *JWT) Verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	var c claims
	_, err := j.parser.ParseWithClaims(token, &c, j.keys.KeyfuncCtx(ctx))
	if err != nil {
		return nil, fmt.Errorf("%w: %s", auth.ErrInvalidToken, reason(err))
	}
	if c.Subject == "" {
		return nil, fmt.Errorf("%w: the token has no subject", auth.ErrInvalidToken)
	}
	info := &auth.TokenInfo{UserID: c.Subject, Scopes: strings.Fields(c.Scope), Extra: map[string]any{"kind": "jwt"}}
	switch s := c.Scp.(type) {
	case string:
		info.Scopes = append(info.Scopes, strings.Fields(s)...)
	case []any:
		for _, v := range s {
			if v, ok := v.(string); ok {
				info.Scopes = append(info.Scopes, v)
			}
		}
	}
	// Every claim, for the policies (host/policy/entity.Principal): the
	// token is verified by now, its payload is read again as a map.
	var all jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &all); err == nil {
		info.Extra["claims"] = map[string]any(all)
		if gs, ok := all["groups"].([]any); ok {
			var groups []string
			for _, g := range gs {
				if g, ok := g.(string); ok {
					groups = append(groups, g)
				}
			}
			info.Extra["groups"] = groups
		}
	}
	info.Extra["issuer"] = c.Issuer
	if c.ExpiresAt != nil {
		// go-sdk compares the expiration again, with its own skew (none):
		// give it ours.
		info.Expiration = c.ExpiresAt.Add(j.o.ClockSkew)
	}
	return info, nil
}

// reason turns a jwt error into a short message for the client and logs.
func reason(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return "the token has expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return "the token is not valid yet"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "the token is not for this resource (aud)"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "the token is from another issuer (iss)"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "the token's signature is not valid"
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return "the token cannot be verified: " + err.Error()
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "the token is malformed"
	}
	return err.Error()
}

// Chain returns a verifier trying each in turn: the first that accepts a
// token wins; when all refuse, the last refusal is returned.
func Chain(verifiers ...auth.TokenVerifier) auth.TokenVerifier {
	return func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		err := fmt.Errorf("%w: no verifier", auth.ErrInvalidToken)
		for _, v := range verifiers {
			var info *auth.TokenInfo
			if info, err = v(ctx, token, r); err == nil {
				return info, nil
			}
		}
		return nil, err
	}
}
