package netguard

import (
	"net/netip"
)

// special is a range of addresses a plugin may not reach unless an IP or
// CIDR grant names it, and how a refusal describes it.
type special struct {
	prefix netip.Prefix
	what   string
}

// specials is checked in order: the cloud metadata addresses come before
// the ranges holding them, so that a refusal names them as such.
var specials = func() []special {
	list := []struct{ cidr, what string }{
		// Cloud metadata services (instance credentials live there).
		{"169.254.169.254/32", "a cloud metadata address (AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle)"},
		{"169.254.170.2/32", "a cloud metadata address (AWS ECS task credentials)"},
		{"169.254.169.123/32", "a cloud metadata address (AWS time service)"},
		{"100.100.100.200/32", "a cloud metadata address (Alibaba Cloud)"},
		{"192.0.0.192/32", "a cloud metadata address (Oracle Cloud)"},
		{"fd00:ec2::254/128", "a cloud metadata address (AWS, IPv6)"},
		{"fd00:ec2::23/128", "a cloud metadata address (AWS time service, IPv6)"},
		// IPv4.
		{"0.0.0.0/8", "an unspecified (\"this network\") address"},
		{"10.0.0.0/8", "a private address (RFC 1918)"},
		{"100.64.0.0/10", "a shared carrier-grade NAT address (RFC 6598)"},
		{"127.0.0.0/8", "a loopback address"},
		{"169.254.0.0/16", "a link-local address"},
		{"172.16.0.0/12", "a private address (RFC 1918)"},
		{"192.0.0.0/24", "an IETF protocol address (RFC 6890)"},
		{"192.0.2.0/24", "a documentation address (RFC 5737)"},
		{"192.88.99.0/24", "a 6to4 relay address (RFC 7526)"},
		{"192.168.0.0/16", "a private address (RFC 1918)"},
		{"198.18.0.0/15", "a benchmarking address (RFC 2544)"},
		{"198.51.100.0/24", "a documentation address (RFC 5737)"},
		{"203.0.113.0/24", "a documentation address (RFC 5737)"},
		{"224.0.0.0/4", "a multicast address"},
		{"240.0.0.0/4", "a reserved or broadcast address"},
		// IPv6 (IPv4-mapped addresses are checked as IPv4).
		{"::/128", "an unspecified address"},
		{"::1/128", "a loopback address"},
		{"64:ff9b:1::/48", "a local-use NAT64 address (RFC 8215)"},
		{"100::/64", "a discard-only address (RFC 6666)"},
		{"2001:db8::/32", "a documentation address (RFC 3849)"},
		{"2001::/23", "an IETF protocol address (RFC 2928; Teredo included)"},
		{"fc00::/7", "a unique local address (RFC 4193)"},
		{"fe80::/10", "a link-local address"},
		{"fec0::/10", "a site-local address"},
		{"ff00::/8", "a multicast address"},
	}
	out := make([]special, len(list))
	for i, s := range list {
		out[i] = special{netip.MustParsePrefix(s.cidr), s.what}
	}
	return out
}()

var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
)

// classify says whether ip is one a plugin may not reach without an IP or
// CIDR grant, and what it is. ip must be unmapped (IPv4-mapped IPv6
// addresses are IPv4). An IPv6 address embedding an IPv4 one (NAT64,
// 6to4) is judged by the address it embeds; other IPv6 addresses outside
// global unicast (2000::/3) are reserved.
func classify(ip netip.Addr) (what string, restricted bool) {
	if !ip.IsValid() {
		return "an invalid address", true
	}
	ip = ip.Unmap()
	if ip.Zone() != "" {
		return "a scoped (zoned) address", true
	}
	for _, s := range specials {
		if s.prefix.Contains(ip) {
			return s.what, true
		}
	}
	if ip.Is4() {
		return "", false
	}
	b := ip.As16()
	switch {
	case nat64.Contains(ip):
		if w, r := classify(netip.AddrFrom4([4]byte(b[12:16]))); r {
			return w + ", through NAT64", true
		}
		return "", false
	case sixToFour.Contains(ip):
		if w, r := classify(netip.AddrFrom4([4]byte(b[2:6]))); r {
			return w + ", through 6to4", true
		}
		return "", false
	case !globalUnicast6.Contains(ip):
		return "a reserved IPv6 address", true
	}
	return "", false
}
