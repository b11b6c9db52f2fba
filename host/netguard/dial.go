package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// Resolver looks up a name's addresses. *net.Resolver is one; tests inject
// their own to make names resolve to chosen addresses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// dialTimeout bounds one TCP connection attempt (the request's context
// bounds it too).
const dialTimeout = 10 * time.Second

// dial is the transport's DialContext. It resolves the name itself, checks
// every address against the grants, and connects only to an address it
// checked, by address: there is no second resolution between the check
// and the connection, so a DNS answer that changes (rebinding) cannot slip
// a restricted address in. The dialer's Control checks the socket's
// address once more just before connect.
func (g *Guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("invalid port %q", portText)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ips, err = g.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			var dnsErr *net.DNSError
			if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
				return nil, &Error{Reason: ReasonFailed, Msg: fmt.Sprintf("%s does not resolve (no such host)", host)}
			}
			return nil, fmt.Errorf("resolving %s: %w", host, err)
		}
		if len(ips) == 0 {
			return nil, &Error{Reason: ReasonFailed, Msg: fmt.Sprintf("%s does not resolve (no addresses)", host)}
		}
	}
	var refused *Error
	var lastErr error
	for _, ip := range ips {
		ip = ip.Unmap()
		if what, ok := g.addressAllowed(ip); !ok {
			if refused == nil {
				refused = &Error{Reason: ReasonAddress, IP: ip.String(),
					Msg: fmt.Sprintf("%s resolves to %s, %s, which plugin %q is not granted (only an IP or CIDR grant names such an address)", host, ip, what, g.opts.Plugin)}
				if host == ip.String() {
					refused.Msg = fmt.Sprintf("%s is %s, which plugin %q is not granted (only an IP or CIDR grant names such an address)", ip, what, g.opts.Plugin)
				}
			}
			continue
		}
		d := net.Dialer{Timeout: dialTimeout, Control: g.control}
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		lastErr = err
	}
	if lastErr != nil {
		return nil, lastErr
	}
	return nil, refused
}

// control runs on the socket before it connects: the address must still be
// one the grants allow. It is a second check, after dial's, for any path
// that would reach the socket without passing through dial.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to connect to %q: not an address", address)
	}
	if what, ok := g.addressAllowed(ap.Addr()); !ok {
		return &Error{Reason: ReasonAddress, IP: ap.Addr().Unmap().String(),
			Msg: fmt.Sprintf("%s is %s, which plugin %q is not granted", ap.Addr().Unmap(), what, g.opts.Plugin)}
	}
	return nil
}
