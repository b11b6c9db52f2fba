package httpserve

import (
	"fmt"
	"net"
	"net/http"
	"strings"
)

// The Host-header rule, for /mcp and every route beside it: with
// AllowedHosts, a request must name one of them (or, on a loopback
// connection, a loopback host); without, go-sdk's own rule applies — a
// request that reached a loopback address must name a loopback host — so
// that a DNS-rebinding page cannot reach a server bound to loopback.

// listedHost checks the Host header against allowed (non-empty).
func listedHost(allowed []string, r *http.Request) bool {
	name := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		name = h
	}
	for _, a := range allowed {
		if strings.EqualFold(a, r.Host) || strings.EqualFold(a, name) {
			return true
		}
	}
	return loopbackHost(r)
}

// defaultHostAllowed is go-sdk's own rule, which /mcp gets from go-sdk
// when AllowedHosts is empty.
func defaultHostAllowed(r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return local == nil || !isLoopback(local.String()) || isLoopback(r.Host)
}

// loopbackHost reports whether r reached a loopback address and names a
// loopback host.
func loopbackHost(r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return local != nil && isLoopback(local.String()) && isLoopback(r.Host)
}

// isLoopback reports whether a host or host:port names the loopback
// interface.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// refuseHost answers 403 for a Host the rule does not allow.
func refuseHost(w http.ResponseWriter, r *http.Request) {
	httpError(w, http.StatusForbidden, fmt.Sprintf("Forbidden: Host %q is not allowed", r.Host))
}

// hostChecked applies the Host rule to a route served beside /mcp, so a
// DNS-rebinding page cannot read it either.
func hostChecked(o Options, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		allowed := defaultHostAllowed(r)
		if len(o.AllowedHosts) > 0 {
			allowed = listedHost(o.AllowedHosts, r)
		}
		if !allowed {
			refuseHost(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}
