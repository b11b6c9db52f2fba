// Package netguard is the HTTP client mcpwasm gives plugins: every request
// is denied unless the operator granted its destination, and a granted
// request cannot be turned against the host's own network.
//
//   - The URL must match a grant (host name, *.domain wildcard, IP or CIDR;
//     port; scheme, https only unless http is granted; method).
//   - Every connection is checked at dial time against the address it
//     actually connects to: the guard resolves the name itself and dials
//     the checked address, so loopback, private (RFC 1918, RFC 4193),
//     link-local, cloud metadata, multicast, reserved and unspecified
//     addresses are refused unless an IP or CIDR grant names them, and a
//     DNS answer that changes between check and use gets nothing.
//   - Each redirect hop is checked again, at most MaxRedirects of them.
//   - Request and response bodies are capped, so is the number of requests
//     per call, and every request ends with the call's context.
//   - No proxy, no environment, no netrc, no cookie jar: nothing of the
//     host's credentials reaches a request. Headers are sent as the plugin
//     set them, except Host: the URL's host decides where the request goes
//     and what it is called.
//
// Every request goes to the log (plugin, host, IP, status, bytes) and to
// the call context's audit log; every refusal too, as an audit denial.
package netguard

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// MaxRedirects is the most redirects one request follows.
const MaxRedirects = 5

// Limits bound what a plugin's requests may cost. Zero fields take the
// defaults.
type Limits struct {
	// MaxRequests bounds the requests of one call. Default 32.
	MaxRequests int
	// MaxRequestBody bounds a request body, in bytes. Default 1 MiB.
	MaxRequestBody int64
	// MaxResponse bounds a response body, in bytes (decoded, if the server
	// compressed it). Default 4 MiB.
	MaxResponse int64
	// Timeout bounds each request, redirects included. Default: none
	// beyond the call's own deadline, which always applies.
	Timeout time.Duration
}

// Defaults for Limits' zero fields.
const (
	DefaultMaxRequests    = 32
	DefaultMaxRequestBody = 1 << 20
	DefaultMaxResponse    = 4 << 20
)

func (l *Limits) applyDefaults() {
	if l.MaxRequests <= 0 {
		l.MaxRequests = DefaultMaxRequests
	}
	if l.MaxRequestBody <= 0 {
		l.MaxRequestBody = DefaultMaxRequestBody
	}
	if l.MaxResponse <= 0 {
		l.MaxResponse = DefaultMaxResponse
	}
}

// Options configures a Guard.
type Options struct {
	// Plugin is the plugin's name, for messages, logs and the audit log.
	Plugin string
	// Grants are what the plugin may reach. None: every request is refused.
	Grants []Grant
	// Limits bound the plugin's requests.
	Limits Limits
	// Logger receives one line per request and per refusal. Nil discards.
	Logger *slog.Logger
	// Resolver resolves names. Nil: net.DefaultResolver.
	Resolver Resolver
	// TLS is the TLS configuration (tests set RootCAs). Nil: the system's
	// roots.
	TLS *tls.Config
}

// Guard makes one plugin's requests. It is safe for concurrent use; each
// call of the plugin makes its requests through its own Call.
type Guard struct {
	opts      Options
	rules     []rule
	logger    *slog.Logger
	resolver  Resolver
	transport *http.Transport
	client    *http.Client
}

// New checks the grants and returns a Guard.
func New(opts Options) (*Guard, error) {
	opts.Limits.applyDefaults()
	g := &Guard{opts: opts, logger: opts.Logger, resolver: opts.Resolver}
	for _, gr := range opts.Grants {
		r, err := compile(gr)
		if err != nil {
			return nil, err
		}
		g.rules = append(g.rules, r)
	}
	if g.logger == nil {
		g.logger = slog.New(slog.DiscardHandler)
	}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.TLS != nil {
		tlsConf = opts.TLS.Clone()
	}
	g.transport = &http.Transport{
		Proxy:                  nil, // never the host's HTTP_PROXY
		DialContext:            g.dial,
		TLSClientConfig:        tlsConf,
		TLSHandshakeTimeout:    10 * time.Second,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           16,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		ExpectContinueTimeout:  time.Second,
	}
	g.client = &http.Client{Transport: g.transport, CheckRedirect: g.checkRedirect}
	return g, nil
}

// Granted reports whether the plugin was granted any destination.
func (g *Guard) Granted() bool { return len(g.rules) > 0 }

// Limits returns the limits in force (defaults applied).
func (g *Guard) Limits() Limits { return g.opts.Limits }

// Describe lists the grants for people, one line each (mcpwasm inspect).
func Describe(grants []Grant) []string {
	var out []string
	for _, gr := range grants {
		out = append(out, describe(gr))
	}
	return out
}

// Close drops the guard's idle connections.
func (g *Guard) Close() { g.transport.CloseIdleConnections() }

// Call counts the requests of one plugin call.
type Call struct {
	g       *Guard
	n       atomic.Int64
	flooded atomic.Bool // a too_many_requests refusal was already logged
}

// NewCall starts counting the requests of one plugin call.
func (g *Guard) NewCall() *Call { return &Call{g: g} }

// Request is what a plugin asks for (Extism's http_request JSON plus the
// body).
type Request struct {
	URL     string            `json:"url"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"-"`
}

// Response is what the plugin gets back.
type Response struct {
	// Status is the HTTP status code.
	Status int
	// Headers are the response headers the way Extism gives them: names in
	// lower case, repeated values joined with ",".
	Headers map[string]string
	// Body is the response body (decoded if the server compressed it).
	Body []byte
	// IP is the address the response came from (the last hop's).
	IP string
}

// ErrorHeader is the response header set on the answer the guest gets in
// place of a refused or failed request; its value is the Reason.
const ErrorHeader = "x-mcpwasm-error"

// Response is the answer the guest gets for a refused or failed request:
// Status(), the ErrorHeader, and the message as a text body.
func (e *Error) Response() *Response {
	return &Response{
		Status:  e.Status(),
		Headers: map[string]string{ErrorHeader: e.Reason, "content-type": "text/plain; charset=utf-8"},
		Body:    []byte("mcpwasm: " + e.Msg),
		IP:      e.IP,
	}
}

// extismHeaders turns response headers into Extism's form.
func extismHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[strings.ToLower(k)] = strings.Join(v, ",")
	}
	return out
}

// Do makes one request. Every failure is an *Error: a refusal (Denied) or a
// request that was allowed and failed.
func (c *Call) Do(ctx context.Context, req Request) (*Response, *Error) {
	start := time.Now()
	res, hops, err := c.do(ctx, &req)
	if hops.span != nil {
		if err != nil {
			hops.span.EndHTTP(0, len(req.Body), 0, hops.redirects, err.Reason, err.Msg)
		} else {
			hops.span.EndHTTP(res.Status, len(req.Body), len(res.Body), hops.redirects, "", "")
		}
	}
	if err != nil && err.Reason == ReasonRequests && c.flooded.Swap(true) {
		return nil, err // the first such refusal of the call was reported; the rest would flood the log
	}
	c.g.report(ctx, &req, res, hops, err, time.Since(start))
	return res, err
}
