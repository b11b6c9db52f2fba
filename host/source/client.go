package source

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// defaultClient bounds every phase of a request but the body, which the
// per-source timeout bounds. Redirects stay on https (a registry's blob
// redirect to its storage included), at most 5.
func defaultClient() *http.Client {
	t := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:    15 * time.Second,
		ResponseHeaderTimeout:  60 * time.Second,
		ExpectContinueTimeout:  time.Second,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
		ForceAttemptHTTP2:      true,
	}
	return &http.Client{Transport: t, CheckRedirect: checkRedirect}
}

// checkRedirect refuses a redirect from https to anything else, and more
// than 5 hops.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("more than 5 redirects")
	}
	if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("refusing a redirect from https to %s", req.URL.Redacted())
	}
	return nil
}

// isLoopbackHost reports whether host[:port] is localhost or a loopback
// address: those registries are spoken to over plain HTTP, as Docker does.
func isLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// dockerCredentials reads logins from the Docker credential file the first
// time a registry asks for one. A file that cannot be read is logged and
// the registry is tried anonymously.
func dockerCredentials(logger *slog.Logger) auth.CredentialFunc {
	var once sync.Once
	var fn auth.CredentialFunc
	return func(ctx context.Context, hostport string) (auth.Credential, error) {
		once.Do(func() {
			st, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
			if err != nil {
				logger.Warn("cannot read the Docker credential file: registries are tried anonymously", "err", err)
				return
			}
			fn = credentials.Credential(st)
		})
		if fn == nil {
			return auth.EmptyCredential, nil
		}
		return fn(ctx, hostport)
	}
}

// plainHTTPGuard refuses a plain-HTTP request to a host that is not
// spoken to over plain HTTP (Options.PlainHTTP). A registry names the URL
// its tokens come from (the WWW-Authenticate realm), and the login goes
// there: an https registry, or a loopback one, must not get it sent in
// the clear to another host. Redirects are refused the same way.
type plainHTTPGuard struct {
	base  http.RoundTripper
	allow func(host string) bool
}

// RoundTrip implements http.RoundTripper.
func (g plainHTTPGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" && !g.allow(req.URL.Host) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("refusing plain HTTP to %s: only loopback registries are spoken to without TLS", req.URL.Host)
	}
	return g.base.RoundTrip(req)
}

// guarded returns a copy of c whose requests go through plainHTTPGuard.
func guarded(c *http.Client, allow func(string) bool) *http.Client {
	cc := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc.Transport = plainHTTPGuard{base: base, allow: allow}
	return &cc
}
