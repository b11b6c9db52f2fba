package netguard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// exchange is what one Do learned, for the log.
type exchange struct {
	method    string
	target    string // the first hop, scheme://host:port
	final     string // the last hop, when redirected
	redirects int
	from      string // the hop that redirected to final
	span      *tracing.Span
	mu        sync.Mutex
	ip        string // the last connection's remote address
}

func (x *exchange) setIP(ip string) {
	x.mu.Lock()
	x.ip = ip
	x.mu.Unlock()
}

func (x *exchange) getIP() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.ip
}

var headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

func (c *Call) do(ctx context.Context, req *Request) (*Response, *exchange, *Error) {
	g := c.g
	x := &exchange{method: strings.ToUpper(req.Method)}
	if x.method == "" {
		x.method = http.MethodGet
	}
	if !methodRE.MatchString(x.method) {
		return nil, x, &Error{Reason: ReasonBadRequest, Msg: fmt.Sprintf("method %q is not a valid HTTP method", req.Method)}
	}
	u, err := url.Parse(req.URL)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, x, &Error{Reason: ReasonBadRequest, Msg: fmt.Sprintf("the url %q is not an absolute http or https URL", clip.String(req.URL, 200))}
	}
	t, err := parseTarget(u, x.method)
	x.target = t.String()
	if err == nil {
		// The span names the target's scheme, host and port, never its
		// path or query.
		ctx, x.span = tracing.StartHTTP(ctx, x.method, t.scheme, t.host, t.port)
	}
	if err != nil {
		e := err.(*Error)
		e.Host = x.target
		e.Msg = fmt.Sprintf("%s %s refused: %s", x.method, x.target, e.Msg)
		return nil, x, e
	}
	if n := c.n.Add(1); n > int64(g.opts.Limits.MaxRequests) {
		return nil, x, g.refuse(ReasonRequests, t, "", "plugin %q already made %d requests in this call, the most one call may make",
			g.opts.Plugin, g.opts.Limits.MaxRequests)
	}
	if e := g.check(t); e != nil {
		return nil, x, e
	}
	if int64(len(req.Body)) > g.opts.Limits.MaxRequestBody {
		return nil, x, g.refuse(ReasonRequestSize, t, "", "the request body is %d bytes, more than the limit of %d",
			len(req.Body), g.opts.Limits.MaxRequestBody)
	}
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if g.opts.Limits.Timeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, g.opts.Limits.Timeout)
	}
	defer cancel()
	rctx = context.WithValue(rctx, exchangeKey{}, x)
	rctx = httptrace.WithClientTrace(rctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			if a := info.Conn.RemoteAddr(); a != nil {
				x.setIP(hostOf(a.String()))
			}
		},
	})
	var body io.Reader
	if len(req.Body) > 0 {
		body = bytes.NewReader(req.Body)
	}
	hreq, err := http.NewRequestWithContext(rctx, x.method, u.String(), body)
	if err != nil {
		return nil, x, g.refuse(ReasonBadRequest, t, "", "%v", err)
	}
	for k, v := range req.Headers {
		if !headerNameRE.MatchString(k) || strings.ContainsAny(v, "\r\n\x00") {
			return nil, x, g.refuse(ReasonBadRequest, t, "", "header %q is not a valid HTTP header", clip.String(k, 100))
		}
		if strings.EqualFold(k, "Host") {
			continue // the URL's host is the Host header: it cannot be pointed at another name
		}
		hreq.Header.Set(k, v)
	}
	tracing.Inject(rctx, hreq.Header) // with tracing on: the granted server may join the trace
	resp, err := g.client.Do(hreq)
	if err != nil {
		return nil, x, g.failure(ctx, rctx, t, x, err)
	}
	defer resp.Body.Close()
	limit := g.opts.Limits.MaxResponse
	tooLarge := func() *Error {
		return g.refuse(ReasonResponseSize, t, x.getIP(), "the response is larger than the limit of %d bytes", limit)
	}
	if resp.ContentLength > limit {
		return nil, x, tooLarge()
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, x, g.failure(ctx, rctx, t, x, err)
	}
	if int64(len(data)) > limit {
		return nil, x, tooLarge()
	}
	return &Response{Status: resp.StatusCode, Headers: extismHeaders(resp.Header), Body: data, IP: x.getIP()}, x, nil
}

// failure explains an error from the client or from reading the body.
func (g *Guard) failure(ctx, rctx context.Context, t target, x *exchange, err error) *Error {
	var ge *Error
	if errors.As(err, &ge) {
		e := *ge
		if e.Host == "" {
			e.Host = t.String()
		}
		switch e.Reason {
		case ReasonAddress:
			e.Msg = fmt.Sprintf("%s refused: %s", x.where(t), e.Msg)
		case ReasonFailed:
			e.Msg = fmt.Sprintf("%s failed: %s", x.where(t), e.Msg)
		}
		return &e
	}
	switch {
	case ctx.Err() == context.Canceled:
		return &Error{Reason: ReasonFailed, Host: t.String(), IP: x.getIP(),
			Msg: fmt.Sprintf("%s failed: the call was cancelled", x.where(t))}
	case ctx.Err() != nil:
		return &Error{Reason: ReasonTimeout, Host: t.String(), IP: x.getIP(),
			Msg: fmt.Sprintf("%s did not finish before the call's deadline", x.where(t))}
	case rctx.Err() != nil:
		return &Error{Reason: ReasonTimeout, Host: t.String(), IP: x.getIP(),
			Msg: fmt.Sprintf("%s did not finish within the request time limit of %s", x.where(t), g.opts.Limits.Timeout)}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its message holds the whole URL, which may carry secrets
	}
	return &Error{Reason: ReasonFailed, Host: t.String(), IP: x.getIP(),
		Msg: fmt.Sprintf("%s failed: %v", x.where(t), err)}
}

// where names the request in messages: "GET https://host:443", and the hop
// it reached when it was redirected.
func (x *exchange) where(t target) string {
	if x.redirects > 0 {
		return fmt.Sprintf("%s %s (redirected from %s to %s)", x.method, t, x.from, x.final)
	}
	return fmt.Sprintf("%s %s", x.method, t)
}

type exchangeKey struct{}

// checkRedirect checks each hop against the grants, as the first request
// was; the dial check then applies to its connection too.
func (g *Guard) checkRedirect(req *http.Request, via []*http.Request) error {
	from := "?"
	if prev := via[len(via)-1]; prev != nil {
		if t, err := parseTarget(prev.URL, prev.Method); err == nil {
			from = t.String()
		}
	}
	t, err := parseTarget(req.URL, req.Method)
	if err != nil {
		e := *err.(*Error)
		e.Host = t.String()
		e.Msg = fmt.Sprintf("redirect from %s to %s refused: %s", from, t, e.Msg)
		return &e
	}
	if len(via) > MaxRedirects {
		return g.refuse(ReasonRedirects, t, "", "more than %d redirects (the last from %s)", MaxRedirects, from)
	}
	if e := g.check(t); e != nil {
		e.Msg = fmt.Sprintf("redirect from %s: %s", from, e.Msg)
		return e
	}
	if x, ok := req.Context().Value(exchangeKey{}).(*exchange); ok {
		x.redirects, x.from, x.final = len(via), from, t.String()
	}
	return nil
}

// report logs one request and records it in the context's audit log.
func (g *Guard) report(ctx context.Context, req *Request, res *Response, x *exchange, err *Error, d time.Duration) {
	attrs := []any{"plugin", g.opts.Plugin, "method", x.method, "host", x.target}
	ev := audit.Event{Plugin: g.opts.Plugin, DurationMs: float64(d.Microseconds()) / 1000,
		Attrs: map[string]any{"method": x.method, "host": x.target, "bytes_out": len(req.Body)}}
	if x.final != "" {
		attrs = append(attrs, "final_host", x.final, "redirects", x.redirects)
		ev.Attrs["final_host"], ev.Attrs["redirects"] = x.final, x.redirects
	}
	if err != nil {
		ip := err.IP
		if ip == "" {
			ip = x.getIP()
		}
		attrs = append(attrs, "ip", ip, "reason", err.Reason, "bytes_out", len(req.Body), "error", err.Msg)
		ev.Attrs["ip"], ev.Attrs["reason"], ev.Reason = ip, err.Reason, err.Msg
		if err.Denied() {
			g.logger.Warn("network request refused", attrs...)
			ev.Kind, ev.Denial = audit.KindDenial, audit.DenyNet
		} else {
			g.logger.Warn("network request failed", attrs...)
			ev.Kind, ev.Outcome = audit.KindNet, err.Reason
		}
		audit.FromContext(ctx).Record(ev)
		return
	}
	attrs = append(attrs, "ip", res.IP, "status", res.Status, "bytes_out", len(req.Body), "bytes_in", len(res.Body),
		"ms", d.Milliseconds())
	g.logger.Info("network request", attrs...)
	ev.Kind, ev.Outcome = audit.KindNet, "ok"
	ev.Attrs["ip"], ev.Attrs["status"], ev.Attrs["bytes_in"] = res.IP, res.Status, len(res.Body)
	audit.FromContext(ctx).Record(ev)
}

// hostOf strips the port from an address.
func hostOf(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		return strings.Trim(addr[:i], "[]")
	}
	return addr
}
