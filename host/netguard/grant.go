package netguard

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Grant is one [[plugin.net]] table: destinations a plugin may reach.
type Grant struct {
	// Hosts are exact names ("api.example.com"), wildcards ("*.example.com":
	// any name ending in ".example.com", not example.com itself), "*" (any
	// name, never an IP literal), IP addresses and CIDR prefixes
	// ("127.0.0.1", "10.0.0.0/8", "fd00::/8"). An IP or CIDR entry also lets
	// any granted name resolve into it even when the address is loopback,
	// private or otherwise restricted.
	Hosts []string
	// Ports the hosts may be reached on. Empty: the scheme's default port
	// only (443 for https, 80 for http).
	Ports []int
	// Schemes are "https" and "http". Empty: https only.
	Schemes []string
	// Methods are HTTP methods. Empty: GET, HEAD, POST, PUT, PATCH, DELETE
	// and OPTIONS.
	Methods []string
}

// DefaultMethods are the methods a grant listing none allows.
var DefaultMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// rule is a checked Grant.
type rule struct {
	names    []string       // exact names, lower case
	suffixes []string       // ".example.com" for "*.example.com"
	anyName  bool           // "*"
	prefixes []netip.Prefix // IPs (as /32 or /128) and CIDRs
	ports    []int          // nil: the scheme's default port
	schemes  []string
	methods  []string
}

var (
	labelRE  = regexp.MustCompile(`^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$`)
	methodRE = regexp.MustCompile(`^[A-Z][A-Z-]{0,31}$`)
)

// validName reports whether s is a DNS name of ASCII labels (lower case).
func validName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if !labelRE.MatchString(l) {
			return false
		}
	}
	return true
}

// CheckGrant reports the first problem with g, naming the offending entry.
func CheckGrant(g Grant) error {
	_, err := compile(g)
	return err
}

func compile(g Grant) (rule, error) {
	var r rule
	if len(g.Hosts) == 0 {
		return r, errors.New("hosts is required (names, *.domain wildcards, \"*\", IPs or CIDRs)")
	}
	for _, h := range g.Hosts {
		lh := strings.ToLower(strings.TrimSpace(h))
		switch {
		case lh == "*":
			r.anyName = true
		case strings.HasPrefix(lh, "*."):
			if !validName(lh[2:]) {
				return r, fmt.Errorf("host %q: a wildcard is \"*.\" followed by a DNS name", h)
			}
			r.suffixes = append(r.suffixes, lh[1:])
		case strings.Contains(lh, "/"):
			p, err := netip.ParsePrefix(lh)
			if err != nil {
				return r, fmt.Errorf("host %q: not a valid CIDR prefix", h)
			}
			if p.Addr().Is4In6() {
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			r.prefixes = append(r.prefixes, p.Masked())
		default:
			if ip, err := netip.ParseAddr(strings.Trim(lh, "[]")); err == nil {
				if ip.Zone() != "" {
					return r, fmt.Errorf("host %q: scoped (zoned) addresses cannot be granted", h)
				}
				ip = ip.Unmap()
				r.prefixes = append(r.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
				continue
			}
			if !validName(strings.TrimSuffix(lh, ".")) {
				return r, fmt.Errorf("host %q: not a DNS name (ASCII letters, digits, '-', dots; write internationalized names in punycode), a *.domain wildcard, \"*\", an IP or a CIDR", h)
			}
			r.names = append(r.names, strings.TrimSuffix(lh, "."))
		}
	}
	for _, p := range g.Ports {
		if p < 1 || p > 65535 {
			return r, fmt.Errorf("port %d: must be between 1 and 65535", p)
		}
	}
	r.ports = slices.Clone(g.Ports)
	r.schemes = []string{"https"}
	if len(g.Schemes) > 0 {
		r.schemes = nil
		for _, s := range g.Schemes {
			s = strings.ToLower(s)
			if s != "http" && s != "https" {
				return r, fmt.Errorf("scheme %q: only \"https\" and \"http\" can be granted", s)
			}
			r.schemes = append(r.schemes, s)
		}
	}
	r.methods = DefaultMethods
	if len(g.Methods) > 0 {
		r.methods = nil
		for _, m := range g.Methods {
			m = strings.ToUpper(m)
			if !methodRE.MatchString(m) || m == "CONNECT" {
				return r, fmt.Errorf("method %q: not an HTTP method that can be granted", m)
			}
			r.methods = append(r.methods, m)
		}
	}
	return r, nil
}

// hostMatches reports whether the rule names host (lower case, no trailing
// dot; ip is valid when host is an IP literal).
func (r *rule) hostMatches(host string, ip netip.Addr) bool {
	if ip.IsValid() {
		return r.allowsIP(ip)
	}
	if r.anyName || slices.Contains(r.names, host) {
		return true
	}
	for _, s := range r.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

func (r *rule) allowsIP(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range r.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

func (r *rule) allowsPort(scheme string, port int) bool {
	if len(r.ports) == 0 {
		return port == defaultPort(scheme)
	}
	return slices.Contains(r.ports, port)
}

// ReachablePorts lists the ports g lets a request reach: its Ports, else
// the default port of each of its schemes (443 for https, 80 for http;
// https alone when it names none). A confinement of the process that
// makes the requests opens these TCP ports.
func (g Grant) ReachablePorts() []int {
	if len(g.Ports) > 0 {
		return slices.Clone(g.Ports)
	}
	if len(g.Schemes) == 0 {
		return []int{defaultPort("https")}
	}
	var ports []int
	for _, s := range g.Schemes {
		if p := defaultPort(strings.ToLower(s)); !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	return ports
}

func defaultPort(scheme string) int {
	if scheme == "http" {
		return 80
	}
	return 443
}

// target is a request's destination, checked against the grants.
type target struct {
	scheme, host string     // lower case; host without brackets or trailing dot
	ip           netip.Addr // valid when host is an IP literal
	port         int
	method       string
}

// String is scheme://host:port, the form logs and messages use (never the
// path or the query, which may carry secrets).
func (t target) String() string {
	h := t.host
	if t.ip.Is6() && !t.ip.Is4In6() {
		h = "[" + h + "]"
	}
	return t.scheme + "://" + h + ":" + strconv.Itoa(t.port)
}

// parseTarget reads the destination of a URL.
func parseTarget(u *url.URL, method string) (target, error) {
	t := target{scheme: strings.ToLower(u.Scheme), method: method}
	if t.scheme != "http" && t.scheme != "https" {
		return t, &Error{Reason: ReasonScheme, Msg: fmt.Sprintf("scheme %q is not supported: plugins may make http and https requests only", u.Scheme)}
	}
	t.host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if t.host == "" {
		return t, &Error{Reason: ReasonBadRequest, Msg: "the URL has no host"}
	}
	if ip, err := netip.ParseAddr(t.host); err == nil {
		t.ip = ip.Unmap()
		if ip.Zone() != "" {
			return t, &Error{Reason: ReasonHost, Msg: fmt.Sprintf("host %q is a scoped (zoned) address, which cannot be granted", t.host)}
		}
	} else if !validName(t.host) {
		return t, &Error{Reason: ReasonBadRequest, Msg: fmt.Sprintf("host %q is not a valid DNS name (write internationalized names in punycode)", u.Hostname())}
	}
	t.port = defaultPort(t.scheme)
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return t, &Error{Reason: ReasonBadRequest, Msg: fmt.Sprintf("port %q is not valid", p)}
		}
		t.port = n
	}
	return t, nil
}

// check finds a rule allowing t. When none does it explains why, from the
// point of view of the first rule naming the host.
func (g *Guard) check(t target) *Error {
	if len(g.rules) == 0 {
		return g.refuse(ReasonNoGrant, t, "",
			"network access is not granted to plugin %q (the operator grants hosts with [[plugin.net]] in the config)", g.opts.Plugin)
	}
	var first *rule
	for i := range g.rules {
		r := &g.rules[i]
		if !r.hostMatches(t.host, t.ip) {
			continue
		}
		if first == nil {
			first = r
		}
		if slices.Contains(r.schemes, t.scheme) && r.allowsPort(t.scheme, t.port) && slices.Contains(r.methods, t.method) {
			return nil
		}
	}
	switch {
	case first == nil && t.ip.IsValid():
		return g.refuse(ReasonHost, t, t.ip.String(), "address %s is not granted to plugin %q (only an IP or CIDR grant names an address)", t.host, g.opts.Plugin)
	case first == nil:
		return g.refuse(ReasonHost, t, "", "host %q is not granted to plugin %q", t.host, g.opts.Plugin)
	case !slices.Contains(first.schemes, t.scheme):
		return g.refuse(ReasonScheme, t, "", "%s is not granted to plugin %q for %s (granted: %s)", t.scheme, g.opts.Plugin, t.host, strings.Join(first.schemes, ", "))
	case !first.allowsPort(t.scheme, t.port):
		return g.refuse(ReasonPort, t, "", "port %d of %s is not granted to plugin %q", t.port, t.host, g.opts.Plugin)
	default:
		return g.refuse(ReasonMethod, t, "", "method %s is not granted to plugin %q for %s (granted: %s)", t.method, g.opts.Plugin, t.host, strings.Join(first.methods, ", "))
	}
}

// refuse builds an Error for t: "METHOD scheme://host:port refused: why".
func (g *Guard) refuse(reason string, t target, ip string, format string, args ...any) *Error {
	return &Error{Reason: reason, Host: t.String(), IP: ip,
		Msg: fmt.Sprintf("%s %s refused: ", t.method, t) + fmt.Sprintf(format, args...)}
}

// addressAllowed reports whether a connection to ip may be made: any
// unrestricted address, and a restricted one only if an IP or CIDR grant
// contains it. It returns what the address is, for the refusal.
func (g *Guard) addressAllowed(ip netip.Addr) (what string, ok bool) {
	ip = ip.Unmap()
	what, restricted := classify(ip)
	if !restricted {
		return "", true
	}
	for i := range g.rules {
		if g.rules[i].allowsIP(ip) {
			return what, true
		}
	}
	return what, false
}

// describe writes a rule for people (mcpwasm inspect).
func describe(g Grant) string {
	r, err := compile(g)
	if err != nil {
		return "invalid grant: " + err.Error()
	}
	ports := "default port"
	if len(r.ports) > 0 {
		var ps []string
		for _, p := range r.ports {
			ps = append(ps, strconv.Itoa(p))
		}
		ports = "ports " + strings.Join(ps, ", ")
	}
	return fmt.Sprintf("%s  [%s; %s; %s]", strings.Join(g.Hosts, ", "), strings.Join(r.schemes, ", "), ports, strings.Join(r.methods, " "))
}
