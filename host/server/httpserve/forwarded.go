package httpserve

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientIP is the address a request came from: the connection's peer, or,
// when that peer is a trusted proxy (AccessOptions.TrustedProxies), the
// nearest address in X-Forwarded-For that is not a trusted proxy. Entries
// are read from the right, the end each proxy appends to, so a client
// cannot choose its own address by sending the header itself: whatever it
// wrote stays to the left of the address its first trusted proxy saw. A
// malformed entry stops the walk at the last address known to be good.
func (a *access) clientIP(r *http.Request) string {
	peer := r.RemoteAddr
	if host, _, err := net.SplitHostPort(peer); err == nil {
		peer = host
	}
	if len(a.o.TrustedProxies) == 0 {
		return peer
	}
	ip, err := netip.ParseAddr(peer)
	if err != nil || !a.trusted(ip) {
		return peer
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		ip = hop.Unmap()
		if !a.trusted(ip) {
			break
		}
	}
	return ip.String()
}

func (a *access) trusted(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range a.o.TrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// limitKey is the part of a client IP its limits are keyed by: an IPv4
// address, or an IPv6 address's /64. An IPv6 host is given a /64 and may
// pick any address in it (privacy addresses), so a bucket per address
// would give one client as many buckets as it likes.
func limitKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !addr.Unmap().Is6() {
		return ip
	}
	p, _ := addr.Unmap().WithZone("").Prefix(64)
	return p.String()
}
