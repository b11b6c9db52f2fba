package httpserve

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/internal/clip"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// AccessOptions decide who may use the HTTP endpoint and how much. Every
// refusal is recorded in the audit log (server.Options.Audit) and logged.
//
//   - Authentication: with a Verifier, a request without a valid bearer
//     token is answered 401 with WWW-Authenticate (go-sdk's
//     auth.RequireBearerToken), one whose token lacks RequiredScopes 403.
//   - Rate: each principal (the token's name or subject; the client's IP
//     without authentication) has a token bucket of Rate requests per
//     second and Burst; over it, 429 with Retry-After.
//   - Failed authentications: each is charged to the client IP's own
//     bucket (same Rate and Burst); once it is empty, requests from that IP
//     get 429 before any token is verified.
//   - Concurrency: at most SessionConcurrency POSTs of one session and
//     PrincipalConcurrency of one principal are handled at once; over
//     either, 429 with Retry-After: 1. GET streams are not counted.
type AccessOptions struct {
	// Verifier checks bearer tokens; nil serves without authentication.
	Verifier auth.TokenVerifier
	// RequiredScopes must all be in every token (403 otherwise).
	RequiredScopes []string
	// Metadata, if set, is served as RFC 9728 protected-resource metadata
	// at /.well-known/oauth-protected-resource and its path-suffixed form,
	// and named in WWW-Authenticate.
	Metadata *oauthex.ProtectedResourceMetadata
	// InsecureNoAuth allows serving beyond loopback without a Verifier.
	InsecureNoAuth bool
	// Rate and Burst bound each principal's requests (default 100/s, burst
	// 200); a negative Rate means no bound. With the default Rate, an
	// unauthenticated client connecting from a loopback address with no
	// X-Forwarded-For or Forwarded header (a local process, not a proxy)
	// is not rate limited: a loopback listener serves its own host, and
	// 100 calls/s throttled local agents and benchmarks. Its concurrency and
	// session bounds still apply. A Rate set explicitly applies to it too.
	Rate  float64
	Burst int
	// SessionConcurrency and PrincipalConcurrency bound the POSTs handled
	// at once (default 16 and 64).
	SessionConcurrency   int
	PrincipalConcurrency int
	// PrincipalSessions bounds the stateful sessions one principal holds
	// at once (default 250), within Options.MaxSessions; over it, a new
	// session is refused with 429 until one of its own ends.
	PrincipalSessions int
	// TrustedProxies are the load balancers and proxies whose
	// X-Forwarded-For is believed: behind them, the client IP (for the
	// limits without authentication, and in the audit log) is the nearest
	// untrusted address in that header. Empty: the connection's peer.
	// Limits key an IPv6 client by its /64.
	TrustedProxies []netip.Prefix

	// localUnlimited is set when Rate was left to its default (see Rate).
	localUnlimited bool

	// state, when set, is the buckets and counters shared by every
	// handler protected with these options (see shared).
	state *limits
}

// shared returns a with one set of buckets and counters for every handler
// it protects: Serve uses it so that /mcp and the routes beside it
// (/metrics) charge a principal's rate, its concurrency and an IP's failed
// authentications once for the endpoint, not once per route.
func (a AccessOptions) shared() AccessOptions {
	if a.state == nil {
		a.state = newLimits()
	}
	return a
}

func (a *AccessOptions) defaults() {
	if a.Rate == 0 {
		a.Rate, a.localUnlimited = 100, true
	}
	if a.Burst <= 0 {
		a.Burst = 200
	}
	if a.SessionConcurrency <= 0 {
		a.SessionConcurrency = 16
	}
	if a.PrincipalConcurrency <= 0 {
		a.PrincipalConcurrency = 64
	}
	if a.PrincipalSessions <= 0 {
		a.PrincipalSessions = 250
	}
}

// CheckExposure refuses to serve addr (HOST:PORT; an empty host is
// 127.0.0.1, as in Listen) when it is not a loopback address and a has
// no Verifier, unless a.InsecureNoAuth. Serve checks it too.
func CheckExposure(addr string, a AccessOptions) error {
	if host, _, err := net.SplitHostPort(addr); err == nil && host == "" {
		return nil
	}
	return checkExposure(addr, a)
}

// checkExposure refuses to serve a non-loopback address without
// authentication, unless the operator said so.
func checkExposure(addr string, a AccessOptions) error {
	if isLoopback(addr) || a.Verifier != nil || a.InsecureNoAuth {
		return nil
	}
	return fmt.Errorf("refusing to serve %s without authentication: it is not a loopback address, so anyone who can reach it could call every tool; "+
		"set [server.auth] tokens_file or [server.auth.oauth] in the config, or pass --insecure-no-auth (e.g. behind an authenticating proxy)", addr)
}

// mountMetadata serves the protected-resource metadata, unauthenticated.
func mountMetadata(mux *http.ServeMux, a AccessOptions) {
	if a.Metadata == nil {
		return
	}
	h := auth.ProtectedResourceMetadataHandler(a.Metadata)
	mux.Handle(bearer.WellKnownPath, h)
	if u := bearer.MetadataURL(a.Metadata.Resource); u != "" {
		if p := strings.TrimPrefix(u, originOf(u)); p != bearer.WellKnownPath {
			mux.Handle(p, h)
		}
	}
}

func originOf(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
		return u[:i+3+j]
	}
	return u
}

// access applies AccessOptions in front of the handler.
type access struct {
	srv  Server
	o    AccessOptions
	next http.Handler
	auth http.Handler // RequireBearerToken around serve; nil without a Verifier
	*limits
}

// authState carries one request's authentication outcome out of go-sdk's
// middleware.
type authState struct {
	w       http.ResponseWriter // the real writer, for the request once admitted
	reached bool
	info    *auth.TokenInfo
	reason  string
}

type authStateKey struct{}

// protect wraps next in the access checks.
func protect(s Server, next http.Handler, o AccessOptions) http.Handler {
	o.defaults()
	a := &access{srv: s, o: o, next: next, limits: o.state}
	if a.limits == nil {
		a.limits = newLimits()
	}
	if o.Verifier != nil {
		verify := func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
			info, err := o.Verifier(ctx, token, r)
			if st, ok := ctx.Value(authStateKey{}).(*authState); ok {
				st.info = info
				if err != nil {
					// The reason may quote the client (a JWT's kid): it
					// goes into a header, the log and the audit log.
					st.reason = clip.String(err.Error(), clip.Log)
				}
			}
			return info, err
		}
		var mdURL string
		if o.Metadata != nil {
			mdURL = bearer.MetadataURL(o.Metadata.Resource)
		}
		mw := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: mdURL, Scopes: o.RequiredScopes})
		a.auth = mw(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			st := r.Context().Value(authStateKey{}).(*authState)
			st.reached = true
			a.limit(st.w, r, auth.TokenInfoFromContext(r.Context()))
		}))
	}
	return a
}

func (a *access) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if a.auth == nil {
		a.limit(w, r, nil)
		return
	}
	// Failed authentications are charged to the client's IP: once its
	// bucket is empty, it is refused before any token is verified.
	failKey := "authfail:" + limitKey(a.clientIP(r))
	if retry, over := a.exhausted(failKey); over {
		a.refuse(w, r, "", retry, "rate limit: too many failed authentications from "+a.clientIP(r))
		return
	}
	st := &authState{w: w}
	r = r.WithContext(context.WithValue(r.Context(), authStateKey{}, st))
	a.auth.ServeHTTP(&challenge{ResponseWriter: w, st: st, o: &a.o}, r)
	if st.reached {
		return
	}
	a.charge(failKey)
	reason := st.reason
	var who string
	switch {
	case st.info != nil:
		who = st.info.UserID
		if reason == "" {
			reason = fmt.Sprintf("insufficient scope: the token lacks one of %s", strings.Join(a.o.RequiredScopes, " "))
		}
	case reason == "":
		reason = "no bearer token"
	}
	a.srv.Deny(audit.DenyAuth, who, a.clientIP(r), reason, a.quiet())
}

// challenge rewrites go-sdk's WWW-Authenticate on a refusal so that it
// always names the Bearer scheme, with error="invalid_token" when a token
// was refused and error="insufficient_scope" on 403 (RFC 6750 §3).
type challenge struct {
	http.ResponseWriter
	st      *authState
	o       *AccessOptions
	written bool
}

func (c *challenge) WriteHeader(code int) {
	if !c.written && (code == http.StatusUnauthorized || code == http.StatusForbidden) {
		var params []string
		switch {
		case code == http.StatusForbidden:
			params = append(params, `error="insufficient_scope"`)
		case c.st.reason != "":
			params = append(params, `error="invalid_token"`, fmt.Sprintf("error_description=%q", c.st.reason))
		}
		if c.o.Metadata != nil {
			params = append(params, fmt.Sprintf("resource_metadata=%q", bearer.MetadataURL(c.o.Metadata.Resource)))
		}
		if len(c.o.RequiredScopes) > 0 {
			params = append(params, fmt.Sprintf("scope=%q", strings.Join(c.o.RequiredScopes, " ")))
		}
		v := "Bearer"
		if len(params) > 0 {
			v += " " + strings.Join(params, ", ")
		}
		c.Header().Set("WWW-Authenticate", v)
	}
	c.written = true
	c.ResponseWriter.WriteHeader(code)
}

func (c *challenge) Write(b []byte) (int, error) {
	if !c.written {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(b)
}
