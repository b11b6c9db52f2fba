package netguard

import (
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		ip         string
		restricted bool
		what       string // part of the description
	}{
		{"8.8.8.8", false, ""},
		{"1.1.1.1", false, ""},
		{"93.184.216.34", false, ""},
		{"2606:4700:4700::1111", false, ""},
		{"64:ff9b::808:808", false, ""}, // NAT64 of 8.8.8.8
		{"127.0.0.1", true, "loopback"},
		{"127.255.0.9", true, "loopback"},
		{"::1", true, "loopback"},
		{"::ffff:127.0.0.1", true, "loopback"},
		{"10.1.2.3", true, "RFC 1918"},
		{"172.16.0.1", true, "RFC 1918"},
		{"172.31.255.255", true, "RFC 1918"},
		{"192.168.1.1", true, "RFC 1918"},
		{"::ffff:10.0.0.1", true, "RFC 1918"},
		{"fd12:3456::1", true, "RFC 4193"},
		{"fc00::1", true, "RFC 4193"},
		{"169.254.1.1", true, "link-local"},
		{"fe80::1", true, "link-local"},
		{"169.254.169.254", true, "metadata"},
		{"169.254.170.2", true, "metadata"},
		{"100.100.100.200", true, "metadata"},
		{"fd00:ec2::254", true, "metadata"},
		{"192.0.0.192", true, "metadata"},
		{"100.64.0.1", true, "carrier-grade NAT"},
		{"224.0.0.1", true, "multicast"},
		{"ff02::1", true, "multicast"},
		{"0.0.0.0", true, "unspecified"},
		{"::", true, "unspecified"},
		{"255.255.255.255", true, "broadcast"},
		{"64:ff9b::a00:1", true, "NAT64"},         // NAT64 of 10.0.0.1
		{"2002:7f00:1::1", true, "6to4"},          // 6to4 of 127.0.0.1
		{"2002:808:808::1", false, ""},            // 6to4 of 8.8.8.8
		{"2001:0:4136:e378::1", true, "Teredo"},   // Teredo
		{"::127.0.0.1", true, "reserved IPv6"},    // IPv4-compatible (deprecated)
		{"fe80::1%eth0", true, "scoped"},          // zoned
		{"2001:db8::1", true, "documentation"},    //
		{"198.18.0.1", true, "benchmarking"},      //
		{"192.0.2.1", true, "documentation"},      //
		{"4000::1", true, "reserved IPv6"},        // outside 2000::/3
		{"2a00:1450:4001:81b::200e", false, ""},   // a public IPv6 address
		{"::ffff:8.8.8.8", false, ""},             // mapped public
		{"64:ff9b:1::1", true, "local-use NAT64"}, //
	} {
		ip := netip.MustParseAddr(c.ip)
		what, restricted := classify(ip)
		if restricted != c.restricted || !strings.Contains(what, c.what) {
			t.Errorf("classify(%s) = %q, %v; want restricted=%v with %q", c.ip, what, restricted, c.restricted, c.what)
		}
	}
}

func TestCheckGrant(t *testing.T) {
	for _, c := range []struct {
		g    Grant
		want string // "" = valid
	}{
		{Grant{Hosts: []string{"api.example.com", "*.example.org", "*", "127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"}}, ""},
		{Grant{Hosts: []string{"API.Example.COM."}, Ports: []int{443, 8443}, Schemes: []string{"HTTP", "https"}, Methods: []string{"get", "post"}}, ""},
		{Grant{}, "hosts is required"},
		{Grant{Hosts: []string{"exa mple.com"}}, `host "exa mple.com": not a DNS name`},
		{Grant{Hosts: []string{"bücher.de"}}, "punycode"},
		{Grant{Hosts: []string{"*example.com"}}, "not a DNS name"},
		{Grant{Hosts: []string{"a.*.com"}}, "not a DNS name"},
		{Grant{Hosts: []string{"*."}}, "wildcard"},
		{Grant{Hosts: []string{"10.0.0.0/33"}}, "CIDR"},
		{Grant{Hosts: []string{"fe80::1%eth0"}}, "zoned"},
		{Grant{Hosts: []string{"x.com"}, Ports: []int{0}}, "port 0"},
		{Grant{Hosts: []string{"x.com"}, Ports: []int{70000}}, "port 70000"},
		{Grant{Hosts: []string{"x.com"}, Schemes: []string{"ftp"}}, `scheme "ftp"`},
		{Grant{Hosts: []string{"x.com"}, Methods: []string{"CONNECT"}}, `method "CONNECT"`},
		{Grant{Hosts: []string{"x.com"}, Methods: []string{"GE T"}}, `method "GE T"`},
	} {
		err := CheckGrant(c.g)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckGrant(%+v): %v", c.g, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckGrant(%+v) = %v, want an error containing %q", c.g, err, c.want)
		}
	}
}

func TestGrantMatching(t *testing.T) {
	g, err := New(Options{Plugin: "p", Grants: []Grant{
		{Hosts: []string{"api.example.com", "*.example.org"}, Methods: []string{"GET"}},
		{Hosts: []string{"10.0.0.0/8"}, Ports: []int{8080}, Schemes: []string{"http"}},
		{Hosts: []string{"api.example.com"}, Ports: []int{8443}, Methods: []string{"POST"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, url string
		reason      string // "" = allowed
	}{
		{"GET", "https://api.example.com/x", ""},
		{"GET", "https://API.EXAMPLE.COM./x", ""},
		{"GET", "https://api.example.com:443/x", ""},
		{"POST", "https://api.example.com:8443/x", ""},
		{"GET", "https://a.example.org/", ""},
		{"GET", "https://a.b.example.org/", ""},
		{"GET", "http://10.1.2.3:8080/", ""},
		{"GET", "http://[::ffff:10.1.2.3]:8080/", ""},
		{"GET", "https://example.org/", ReasonHost},          // the wildcard does not cover the domain itself
		{"GET", "https://badexample.org/", ReasonHost},       // nor a name that merely ends alike
		{"GET", "https://api.example.com.evil/", ReasonHost}, //
		{"GET", "https://11.0.0.1:8080/", ReasonHost},        // an IP literal needs an IP grant
		{"GET", "http://api.example.com/", ReasonScheme},     // https only by default
		{"GET", "https://api.example.com:8080/", ReasonPort},
		{"DELETE", "https://api.example.com/", ReasonMethod},
		{"GET", "https://10.1.2.3:8080/", ReasonScheme},
		{"GET", "ftp://api.example.com/", ReasonScheme},
		{"GET", "https://bücher.example.org/", ReasonBadRequest},
	} {
		u, _ := url.Parse(c.url)
		tg, perr := parseTarget(u, c.method)
		var e *Error
		if perr != nil {
			e = perr.(*Error)
		} else {
			e = g.check(tg)
		}
		switch {
		case c.reason == "" && e != nil:
			t.Errorf("%s %s refused: %s", c.method, c.url, e.Msg)
		case c.reason != "" && (e == nil || e.Reason != c.reason):
			t.Errorf("%s %s: got %v, want reason %s", c.method, c.url, e, c.reason)
		}
	}
}

func TestAddressGrants(t *testing.T) {
	g, err := New(Options{Plugin: "p", Grants: []Grant{{Hosts: []string{"*", "127.0.0.1", "10.0.0.0/8"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for ip, want := range map[string]bool{
		"8.8.8.8": true, "127.0.0.1": true, "::ffff:127.0.0.1": true, "10.9.9.9": true,
		"127.0.0.2": false, "169.254.169.254": false, "192.168.0.1": false, "::1": false,
	} {
		if _, ok := g.addressAllowed(netip.MustParseAddr(ip)); ok != want {
			t.Errorf("addressAllowed(%s) = %v, want %v", ip, ok, want)
		}
		addr := netip.AddrPortFrom(netip.MustParseAddr(ip), 80).String()
		if err := g.control("tcp", addr, nil); (err == nil) != want {
			t.Errorf("control(%s) = %v, want allowed=%v", addr, err, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	got := Describe([]Grant{{Hosts: []string{"api.example.com"}}, {Hosts: []string{"127.0.0.1"}, Ports: []int{8080}, Schemes: []string{"http"}, Methods: []string{"GET"}}})
	want := []string{
		"api.example.com  [https; default port; GET HEAD POST PUT PATCH DELETE OPTIONS]",
		"127.0.0.1  [http; ports 8080; GET]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Describe:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A grant reaches its ports, else its schemes' default ports (https's
// when it names none), whatever the schemes' case.
func TestReachablePorts(t *testing.T) {
	for _, c := range []struct {
		g    Grant
		want []int
	}{
		{Grant{}, []int{443}},
		{Grant{Schemes: []string{"http"}}, []int{80}},
		{Grant{Schemes: []string{"HTTP", "https", "http"}}, []int{80, 443}},
		{Grant{Ports: []int{8080, 8443}, Schemes: []string{"http"}}, []int{8080, 8443}},
	} {
		if got := c.g.ReachablePorts(); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.g, got, c.want)
		}
	}
}
