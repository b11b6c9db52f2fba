package netguard

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRequestPastDeadline(t *testing.T) {
	h := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}, Schemes: []string{"http"}}}, Limits{}, nil)
	h.g.rules[0].ports = []int{h.port(h.plain)}
	ctx, cancel := context.WithTimeout(h.ctx, 200*time.Millisecond)
	defer cancel()
	h.ctx = ctx
	h.refused(t, Request{URL: h.url(h.plain, "127.0.0.1", "/slow")}, ReasonTimeout, "did not finish before the call's deadline")

	h2 := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}, Schemes: []string{"http"}}}, Limits{Timeout: 100 * time.Millisecond}, nil)
	h2.g.rules[0].ports = []int{h2.port(h2.plain)}
	h2.refused(t, Request{URL: h2.url(h2.plain, "127.0.0.1", "/slow")}, ReasonTimeout, "did not finish within the request time limit of 100ms")
}

func TestRequestCountAndBodyLimits(t *testing.T) {
	h := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}, Schemes: []string{"http"}}}, Limits{MaxRequests: 2, MaxRequestBody: 10}, nil)
	h.g.rules[0].ports = []int{h.port(h.plain)}
	call := h.g.NewCall()
	for i := 0; i < 2; i++ {
		if _, err := call.Do(h.ctx, Request{URL: h.url(h.plain, "127.0.0.1", "/ok")}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := call.Do(h.ctx, Request{URL: h.url(h.plain, "127.0.0.1", "/ok")})
	if err == nil || err.Reason != ReasonRequests || err.Status() != 429 || !strings.Contains(err.Msg, "already made 2 requests in this call") {
		t.Fatalf("third request: %v", err)
	}
	before := len(h.log.lines(t))
	for i := 0; i < 10; i++ {
		call.Do(h.ctx, Request{URL: h.url(h.plain, "127.0.0.1", "/ok")})
	}
	if after := len(h.log.lines(t)); after != before {
		t.Errorf("%d more log lines for repeated refusals: a guest could flood the log", after-before)
	}
	// A new call starts counting afresh.
	if _, err := h.g.NewCall().Do(h.ctx, Request{URL: h.url(h.plain, "127.0.0.1", "/ok")}); err != nil {
		t.Fatal(err)
	}
	h.refused(t, Request{URL: h.url(h.plain, "127.0.0.1", "/echo"), Method: "POST", Body: []byte("01234567890")}, ReasonRequestSize, "11 bytes, more than the limit of 10")
}

func TestMalformedRequests(t *testing.T) {
	h := newHarness(t, []Grant{{Hosts: []string{"127.0.0.1"}, Schemes: []string{"http"}}}, Limits{}, nil)
	h.g.rules[0].ports = []int{h.port(h.plain)}
	for _, c := range []struct {
		req    Request
		reason string
		want   string
	}{
		{Request{URL: "not a url"}, ReasonBadRequest, "not an absolute http or https URL"},
		{Request{URL: "/relative"}, ReasonBadRequest, "not an absolute"},
		{Request{URL: "file:///etc/passwd"}, ReasonBadRequest, "not an absolute"},
		{Request{URL: "ftp://127.0.0.1/x"}, ReasonScheme, `scheme "ftp" is not supported`},
		{Request{URL: h.url(h.plain, "127.0.0.1", "/ok"), Method: "G T"}, ReasonBadRequest, "not a valid HTTP method"},
		{Request{URL: h.url(h.plain, "127.0.0.1", "/ok"), Headers: map[string]string{"X-A": "1\r\nX-Injected: 2"}}, ReasonBadRequest, "not a valid HTTP header"},
		{Request{URL: h.url(h.plain, "127.0.0.1", "/ok"), Headers: map[string]string{"Bad Name": "1"}}, ReasonBadRequest, "not a valid HTTP header"},
	} {
		_, err := h.g.NewCall().Do(h.ctx, c.req)
		if err == nil || err.Reason != c.reason || !strings.Contains(err.Msg, c.want) {
			t.Errorf("%+v: %v, want %s with %q", c.req, err, c.reason, c.want)
		}
	}
	if h.hits.Load() != 0 {
		t.Errorf("the origin was reached")
	}
}

// TestNoProxyFromEnvironment: a proxy named in the host's environment is
// never used (it would see every request, and the dial check would apply
// to the proxy rather than to the destination).
func TestNoProxyFromEnvironment(t *testing.T) {
	var proxied atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		io.WriteString(w, "from the proxy")
	}))
	defer proxy.Close()
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")
	h := newHarness(t, []Grant{{Hosts: []string{"origin.test", "127.0.0.1"}, Schemes: []string{"http"}}}, Limits{}, map[string][]string{"origin.test": {"127.0.0.1"}})
	h.g.rules[0].ports = []int{h.port(h.plain)}
	res, err := h.g.NewCall().Do(h.ctx, Request{URL: h.url(h.plain, "origin.test", "/ok")})
	if err != nil || string(res.Body) != "hello" || proxied.Load() != 0 {
		t.Fatalf("%v, body %q, proxy hits %d", err, res.Body, proxied.Load())
	}
	if h.g.transport.Proxy != nil {
		t.Error("the transport has a proxy function")
	}
}
