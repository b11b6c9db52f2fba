package netguard

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// fakeDNS resolves the names it holds and counts every lookup.
type fakeDNS struct {
	mu      sync.Mutex
	names   map[string][]string
	lookups map[string]int
}

func (d *fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lookups == nil {
		d.lookups = map[string]int{}
	}
	d.lookups[host]++
	var out []netip.Addr
	for _, s := range d.names[host] {
		out = append(out, netip.MustParseAddr(s))
	}
	if out == nil {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

func (d *fakeDNS) count(host string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lookups[host]
}

// logBuf collects log output from concurrent writers.
type logBuf struct{ fixture.Buffer }

// lines are the log's JSON records.
func (l *logBuf) lines(t *testing.T) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// origin is the test's web server: plain HTTP and HTTPS on loopback.
type origin struct {
	plain, tls *httptest.Server
	hits       atomic.Int64
	pool       *x509.CertPool
}

func (o *origin) port(s *httptest.Server) int {
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	n, _ := strconv.Atoi(p)
	return n
}

func newOrigin(t *testing.T) *origin {
	o := &origin{}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		io.WriteString(w, "hello")
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "host": r.Host, "header": r.Header, "body": string(body)})
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if n <= 0 {
			io.WriteString(w, "end")
			return
		}
		http.Redirect(w, r, "/loop?n="+strconv.Itoa(n-1), http.StatusFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		w.Header().Set("Content-Length", "2000")
		w.Write(bytes.Repeat([]byte("x"), 2000))
	})
	mux.HandleFunc("/bigchunked", func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		for i := 0; i < 20; i++ {
			w.Write(bytes.Repeat([]byte("x"), 100))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		<-r.Context().Done()
	})
	o.plain = httptest.NewServer(mux)
	o.tls = httptest.NewTLSServer(mux)
	t.Cleanup(o.plain.Close)
	t.Cleanup(o.tls.Close)
	o.pool = x509.NewCertPool()
	o.pool.AddCert(o.tls.Certificate())
	return o
}

// harness is a guard over the origin with captured logs and audit events.
type harness struct {
	*origin
	g      *Guard
	dns    *fakeDNS
	log    *logBuf
	mu     sync.Mutex
	events []audit.Event
	ctx    context.Context
}

func newHarness(t *testing.T, grants []Grant, limits Limits, names map[string][]string) *harness {
	h := &harness{origin: newOrigin(t), dns: &fakeDNS{names: names}, log: &logBuf{}}
	for i := range grants {
		for j, host := range grants[i].Hosts {
			grants[i].Hosts[j] = strings.NewReplacer("PLAIN", strconv.Itoa(h.port(h.plain)), "TLS", strconv.Itoa(h.port(h.tls))).Replace(host)
		}
	}
	var err error
	h.g, err = New(Options{Plugin: "fetcher", Grants: grants, Limits: limits, Resolver: h.dns,
		Logger: slog.New(slog.NewJSONHandler(h.log, nil)), TLS: &tls.Config{RootCAs: h.pool}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.g.Close)
	al := audit.New(nil, false)
	al.Observe(func(e audit.Event) {
		h.mu.Lock()
		h.events = append(h.events, e)
		h.mu.Unlock()
	})
	h.ctx = audit.WithLog(context.Background(), al)
	return h
}

func (h *harness) url(s *httptest.Server, host, path string) string {
	scheme := "http"
	if s == h.tls {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s:%d%s", scheme, host, h.port(s), path)
}

func (h *harness) lastEvent(t *testing.T) audit.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.events) == 0 {
		t.Fatal("no audit event recorded")
	}
	return h.events[len(h.events)-1]
}

// refused makes req in a fresh call and checks it is refused for reason,
// with a message containing each of wants, that the log and the audit log
// have it, and that the origin was not reached.
func (h *harness) refused(t *testing.T, req Request, reason string, wants ...string) *Error {
	t.Helper()
	hits := h.hits.Load()
	res, err := h.g.NewCall().Do(h.ctx, req)
	if err == nil {
		t.Fatalf("%s %s: allowed (status %d), want refused for %s", req.Method, req.URL, res.Status, reason)
	}
	if err.Reason != reason {
		t.Fatalf("%s %s: reason %s (%s), want %s", req.Method, req.URL, err.Reason, err.Msg, reason)
	}
	for _, w := range wants {
		if !strings.Contains(err.Msg, w) {
			t.Errorf("%s %s: message %q lacks %q", req.Method, req.URL, err.Msg, w)
		}
	}
	if reason != ReasonResponseSize && reason != ReasonTimeout && reason != ReasonRedirects && !strings.Contains(err.Msg, "redirect") && h.hits.Load() != hits {
		t.Errorf("%s %s: the origin was reached", req.Method, req.URL)
	}
	lines := h.log.lines(t)
	last := lines[len(lines)-1]
	if last["msg"] != "network request refused" || last["reason"] != reason || last["plugin"] != "fetcher" || last["error"] != err.Msg {
		t.Errorf("log line %v, want a refusal for %s", last, reason)
	}
	if strings.Contains(h.log.String(), "secret-query") {
		t.Errorf("the log holds the URL's query: %s", h.log.String())
	}
	ev := h.lastEvent(t)
	if ev.Kind != audit.KindDenial || ev.Denial != audit.DenyNet || ev.Plugin != "fetcher" || ev.Reason != err.Msg || ev.Attrs["reason"] != reason {
		t.Errorf("audit event %+v, want a net denial for %s", ev, reason)
	}
	// The guest's view of the refusal.
	gr := err.Response()
	if gr.Status < 400 || gr.Headers[ErrorHeader] != reason || !strings.Contains(string(gr.Body), err.Msg) {
		t.Errorf("guest response %d %v %q", gr.Status, gr.Headers, gr.Body)
	}
	return err
}

func TestAllowedRequest(t *testing.T) {
	h := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}, Schemes: []string{"http", "https"}}}, Limits{}, nil)
	h.g.rules[0].ports = []int{h.port(h.plain), h.port(h.tls)}
	res, err := h.g.NewCall().Do(h.ctx, Request{URL: h.url(h.plain, "127.0.0.1", "/echo?key=secret-query"), Method: "post",
		Headers: map[string]string{"X-Test": "yes", "Authorization": "Bearer t0k", "Host": "evil.example"}, Body: []byte("payload")})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	var echo struct {
		Method, Host, Body string
		Header             http.Header
	}
	if jerr := json.Unmarshal(res.Body, &echo); jerr != nil {
		t.Fatalf("%v: %s", jerr, res.Body)
	}
	if res.Status != 200 || echo.Method != "POST" || echo.Body != "payload" || echo.Header.Get("X-Test") != "yes" || echo.Header.Get("Authorization") != "Bearer t0k" {
		t.Errorf("status %d, echo %+v", res.Status, echo)
	}
	if want := "127.0.0.1:" + strconv.Itoa(h.port(h.plain)); echo.Host != want {
		t.Errorf("the origin saw Host %q, want %q (the guest's Host header must not decide)", echo.Host, want)
	}
	if res.IP != "127.0.0.1" || res.Headers["content-type"] != "application/json" {
		t.Errorf("ip %q, headers %v", res.IP, res.Headers)
	}
	res, err = h.g.NewCall().Do(h.ctx, Request{URL: h.url(h.tls, "127.0.0.1", "/ok")})
	if err != nil || string(res.Body) != "hello" || res.Headers["x-multi"] != "a,b" {
		t.Fatalf("https: %v %+v", err, res)
	}
	lines := h.log.lines(t)
	last := lines[len(lines)-1]
	if last["msg"] != "network request" || last["ip"] != "127.0.0.1" || last["status"] != float64(200) || last["bytes_in"] != float64(5) ||
		last["host"] != h.url(h.tls, "127.0.0.1", "") || last["plugin"] != "fetcher" {
		t.Errorf("log line %v", last)
	}
	if strings.Contains(h.log.String(), "secret-query") || strings.Contains(h.log.String(), "t0k") {
		t.Errorf("the log holds the query or a header: %s", h.log.String())
	}
	ev := h.lastEvent(t)
	if ev.Kind != audit.KindNet || ev.Outcome != "ok" || ev.Attrs["status"] != 200 || ev.Attrs["ip"] != "127.0.0.1" || ev.Attrs["bytes_in"] != 5 {
		t.Errorf("audit event %+v", ev)
	}
}

func TestHTTPSByNameWithIPGrant(t *testing.T) {
	// example.com is in httptest's certificate; the name resolves to
	// loopback, which only the explicit IP grant allows.
	names := map[string][]string{"example.com": {"127.0.0.1"}, "api.test.example": {"127.0.0.1"}}
	h := newHarness(t, []Grant{{Hosts: []string{"example.com", "*.test.example", "127.0.0.1"}, Schemes: []string{"https", "http"}}}, Limits{}, names)
	h.g.rules[0].ports = []int{h.port(h.plain), h.port(h.tls)}
	for _, u := range []string{h.url(h.tls, "example.com", "/ok"), h.url(h.plain, "api.test.example", "/ok")} {
		res, err := h.g.NewCall().Do(h.ctx, Request{URL: u})
		if err != nil || res.Status != 200 || string(res.Body) != "hello" {
			t.Errorf("%s: %v %+v", u, err, res)
		}
	}
}

func TestDeniedHost(t *testing.T) {
	h := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}}}, Limits{}, map[string][]string{"denied.example": {"127.0.0.1"}})
	h.refused(t, Request{URL: "https://denied.example/x?key=secret-query"}, ReasonHost, `GET https://denied.example:443 refused: host "denied.example" is not granted to plugin "fetcher"`)
	if n := h.dns.count("denied.example"); n != 0 {
		t.Errorf("a denied name was resolved %d times", n)
	}
	h.refused(t, Request{URL: "http://10.0.0.1/"}, ReasonHost)
	h.refused(t, Request{URL: "https://10.0.0.1/"}, ReasonHost, "address 10.0.0.1 is not granted")

	none := newHarness(t, nil, Limits{}, nil)
	none.refused(t, Request{URL: none.url(none.plain, "127.0.0.1", "/ok")}, ReasonNoGrant, `network access is not granted to plugin "fetcher"`, "[[plugin.net]]")
}

func TestRedirectToDeniedHost(t *testing.T) {
	names := map[string][]string{"inner.test": {"127.0.0.2"}, "denied.test": {"127.0.0.1"}}
	h := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1", "inner.test"}, Schemes: []string{"http", "https"}}}, Limits{}, names)
	h.g.rules[0].ports = []int{h.port(h.plain), h.port(h.tls)}
	from := h.url(h.plain, "127.0.0.1", "")
	redirect := func(s *httptest.Server, to string) Request {
		return Request{URL: h.url(s, "127.0.0.1", "/redirect?to="+to)}
	}
	h.refused(t, redirect(h.plain, h.url(h.plain, "denied.test", "/ok")), ReasonHost, "redirect from "+from, `host "denied.test" is not granted`)
	if n := h.dns.count("denied.test"); n != 0 {
		t.Errorf("the denied redirect target was resolved %d times", n)
	}
	h.refused(t, redirect(h.plain, "http://169.254.169.254/latest/meta-data/"), ReasonHost, "redirect from "+from, "address 169.254.169.254 is not granted")
	// A granted name resolving to a restricted address is refused at dial time.
	h.refused(t, redirect(h.plain, h.url(h.plain, "inner.test", "/ok")), ReasonAddress, "inner.test resolves to 127.0.0.2, a loopback address")
	// A downgrade from https to http: only https is granted for the target.
	h2 := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}}}, Limits{}, nil)
	h2.g.rules[0].ports = []int{h2.port(h2.plain), h2.port(h2.tls)}
	h2.refused(t, Request{URL: h2.url(h2.tls, "127.0.0.1", "/redirect?to="+h2.url(h2.plain, "127.0.0.1", "/ok"))}, ReasonScheme,
		"redirect from "+h2.url(h2.tls, "127.0.0.1", ""), "http is not granted")
}

func TestRedirectLimit(t *testing.T) {
	h := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}, Schemes: []string{"http"}}}, Limits{}, nil)
	h.g.rules[0].ports = []int{h.port(h.plain)}
	res, err := h.g.NewCall().Do(h.ctx, Request{URL: h.url(h.plain, "127.0.0.1", "/loop?n=5")})
	if err != nil || string(res.Body) != "end" {
		t.Fatalf("5 redirects: %v", err)
	}
	lines := h.log.lines(t)
	if last := lines[len(lines)-1]; last["redirects"] != float64(5) {
		t.Errorf("log line %v, want redirects 5", last)
	}
	h.refused(t, Request{URL: h.url(h.plain, "127.0.0.1", "/loop?n=6")}, ReasonRedirects, "more than 5 redirects")
}

func TestNameResolvingToRestrictedAddress(t *testing.T) {
	names := map[string][]string{
		"rebind.test":   {"127.0.0.1"},
		"meta.test":     {"169.254.169.254"},
		"mapped.test":   {"::ffff:127.0.0.1"},
		"private.test":  {"10.1.2.3", "192.168.1.1"},
		"ula.test":      {"fd00:ec2::254"},
		"nothing.test":  nil,
		"mixed.test":    {"10.0.0.7", "127.0.0.1"},
		"wildcard.test": {"0.0.0.0"},
	}
	h := newHarness(t, []Grant{{Hosts: []string{"*.test"}, Schemes: []string{"http"}}}, Limits{}, names)
	h.g.rules[0].ports = []int{h.port(h.plain)}
	for name, want := range map[string]string{
		"rebind.test":   "rebind.test resolves to 127.0.0.1, a loopback address, which plugin \"fetcher\" is not granted",
		"meta.test":     "169.254.169.254, a cloud metadata address",
		"mapped.test":   "127.0.0.1, a loopback address",
		"private.test":  "10.1.2.3, a private address (RFC 1918)",
		"ula.test":      "fd00:ec2::254, a cloud metadata address",
		"mixed.test":    "10.0.0.7, a private address",
		"wildcard.test": "0.0.0.0, an unspecified",
	} {
		h.refused(t, Request{URL: h.url(h.plain, name, "/ok")}, ReasonAddress, want)
		if n := h.dns.count(name); n == 0 {
			t.Errorf("%s was never resolved", name)
		}
	}
	if _, err := h.g.NewCall().Do(h.ctx, Request{URL: h.url(h.plain, "nothing.test", "/ok")}); err == nil || err.Reason != ReasonFailed || !strings.Contains(err.Msg, "does not resolve") {
		t.Errorf("unresolvable name: %v", err)
	}
	if h.hits.Load() != 0 {
		t.Errorf("the origin was reached %d times", h.hits.Load())
	}
}

func TestPlainHTTPWhenOnlyHTTPSGranted(t *testing.T) {
	h := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}}}, Limits{}, nil)
	h.g.rules[0].ports = []int{h.port(h.plain), h.port(h.tls)}
	h.refused(t, Request{URL: h.url(h.plain, "127.0.0.1", "/ok")}, ReasonScheme, `http is not granted to plugin "fetcher" for 127.0.0.1 (granted: https)`)
	if res, err := h.g.NewCall().Do(h.ctx, Request{URL: h.url(h.tls, "127.0.0.1", "/ok")}); err != nil || res.Status != 200 {
		t.Fatalf("https: %v", err)
	}
}

func TestPortAndMethod(t *testing.T) {
	h := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}, Schemes: []string{"http"}, Methods: []string{"GET"}}}, Limits{}, nil)
	h.g.rules[0].ports = []int{h.port(h.plain)}
	h.refused(t, Request{URL: h.url(h.tls, "127.0.0.1", "/ok")}, ReasonScheme)
	h.refused(t, Request{URL: "http://127.0.0.1:1/ok"}, ReasonPort, "port 1 of 127.0.0.1 is not granted")
	h.refused(t, Request{URL: h.url(h.plain, "127.0.0.1", "/ok"), Method: "DELETE"}, ReasonMethod, "method DELETE is not granted", "(granted: GET)")
}

func TestOversizedResponse(t *testing.T) {
	h := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}, Schemes: []string{"http"}}}, Limits{MaxResponse: 1000}, nil)
	h.g.rules[0].ports = []int{h.port(h.plain)}
	h.refused(t, Request{URL: h.url(h.plain, "127.0.0.1", "/big")}, ReasonResponseSize, "larger than the limit of 1000 bytes")
	h.refused(t, Request{URL: h.url(h.plain, "127.0.0.1", "/bigchunked")}, ReasonResponseSize, "larger than the limit of 1000 bytes")
	if res, err := h.g.NewCall().Do(h.ctx, Request{URL: h.url(h.plain, "127.0.0.1", "/ok")}); err != nil || res.Status != 200 {
		t.Fatalf("a small response: %v", err)
	}
}
