package plugin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/netguard"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// fakeResolver answers names from a table, as a DNS server under the
// attacker's control could.
type fakeResolver map[string]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// fetch calls pdk_http's fetch tool (the plain Extism Go PDK's
// HTTPRequest.Send) and returns its text and whether it was an error.
func fetch(t *testing.T, p *plugin.Plugin, args map[string]any) (string, bool) {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"request": map[string]any{"name": "fetch", "arguments": args}})
	out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, in)
	if cerr != nil {
		return cerr.Error(), true
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("fetch answered %s: %v", out, err)
	}
	return res.Content[0].Text, res.IsError
}

// TestNetwork: a plugin built with the plain Extism Go PDK makes requests
// through mcpwasm's guarded client. A granted host answers; everything the
// grants do not allow is refused with a reason the guest sees (in the
// x-mcpwasm-error header, which the plugin reports) and a log line.
func TestNetwork(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hello":
			w.Header().Set("X-Test", "yes")
			fmt.Fprintf(w, "hello %s", r.Header.Get("X-Plugin"))
		case "/redirect":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		case "/big":
			w.Write([]byte(strings.Repeat("x", 64<<10)))
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}
	}))
	defer hs.Close()
	u, _ := url.Parse(hs.URL)
	port := 0
	fmt.Sscan(u.Port(), &port)
	log := &fixture.Buffer{}
	rt := warmRuntime(t, plugin.RuntimeOptions{Logger: slog.New(slog.NewTextHandler(log, nil))})
	load := func(grants []netguard.Grant, limits netguard.Limits, timeout time.Duration) *plugin.Plugin {
		return loadIn(t, rt, "pdk_http", plugin.Config{Timeout: timeout, Network: netguard.Options{
			Grants: grants, Limits: limits, Resolver: fakeResolver{"api.test": "127.0.0.1", "other.test": "127.0.0.1"}}})
	}
	// Loopback is granted by its IP, http and the test server's port.
	loopback := netguard.Grant{Hosts: []string{"127.0.0.1", "api.test"}, Ports: []int{port}, Schemes: []string{"http"}}
	p := load([]netguard.Grant{loopback}, netguard.Limits{MaxResponse: 16 << 10}, 0)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	text, isErr := fetch(t, p, map[string]any{"url": base + "/hello", "headers": map[string]string{"X-Plugin": "pdk"}})
	if isErr || !strings.Contains(text, `"status":200`) || !strings.Contains(text, "hello pdk") {
		t.Fatalf("a granted request: %s (isError %v)", text, isErr)
	}
	if text, isErr := fetch(t, p, map[string]any{"url": fmt.Sprintf("http://api.test:%d/hello", port)}); isErr {
		t.Fatalf("a granted name resolving into a granted IP: %s", text)
	}

	for _, c := range []struct {
		what, url, reason string
	}{
		{"a host not granted", fmt.Sprintf("http://other.test:%d/hello", port), netguard.ReasonHost},
		{"a redirect to a host not granted", base + "/redirect?to=" + url.QueryEscape(fmt.Sprintf("http://other.test:%d/hello", port)), netguard.ReasonHost},
		{"a port not granted", "http://127.0.0.1:1/hello", netguard.ReasonPort},
		{"an oversized response", base + "/big", netguard.ReasonResponseSize},
	} {
		text, isErr := fetch(t, p, map[string]any{"url": c.url})
		if !isErr || !strings.Contains(text, c.reason) {
			t.Errorf("%s: %q (isError %v), want the reason %s", c.what, text, isErr, c.reason)
		}
	}

	// A name granted without its address: it resolves to loopback, which
	// only an IP grant opens (DNS rebinding).
	named := load([]netguard.Grant{{Hosts: []string{"api.test"}, Ports: []int{port}, Schemes: []string{"http"}}}, netguard.Limits{}, 0)
	if text, isErr := fetch(t, named, map[string]any{"url": fmt.Sprintf("http://api.test:%d/hello", port)}); !isErr || !strings.Contains(text, netguard.ReasonAddress) {
		t.Errorf("a name resolving to loopback: %q, want %s", text, netguard.ReasonAddress)
	}
	// https only (no schemes listed): http:// is refused.
	httpsOnly := load([]netguard.Grant{{Hosts: []string{"127.0.0.1"}, Ports: []int{port}}}, netguard.Limits{}, 0)
	if text, isErr := fetch(t, httpsOnly, map[string]any{"url": base + "/hello"}); !isErr || !strings.Contains(text, netguard.ReasonScheme) {
		t.Errorf("http:// with https granted: %q, want %s", text, netguard.ReasonScheme)
	}
	// No grant at all: no network.
	none := load(nil, netguard.Limits{}, 0)
	if text, isErr := fetch(t, none, map[string]any{"url": base + "/hello"}); !isErr || !strings.Contains(text, netguard.ReasonNoGrant) {
		t.Errorf("no grant: %q, want %s", text, netguard.ReasonNoGrant)
	}
	// A request past the call's deadline ends with the call.
	slow := load([]netguard.Grant{loopback}, netguard.Limits{}, 500*time.Millisecond)
	if text, isErr := fetch(t, slow, map[string]any{"url": base + "/slow"}); !isErr || !strings.Contains(text, "time limit") {
		t.Errorf("a request past the deadline: %q, want the time limit", text)
	}

	logged := log.String()
	for _, want := range []string{"status=200", netguard.ReasonHost, netguard.ReasonAddress, netguard.ReasonScheme, netguard.ReasonResponseSize} {
		if !strings.Contains(logged, want) {
			t.Errorf("the log has no line with %q:\n%s", want, logged)
		}
	}
}

// TestNetworkHostileGuest: garbage handles and JSON get a 400 answer naming
// the problem, never a trap; before any request the status is 0.
func TestNetworkHostileGuest(t *testing.T) {
	rt := newRuntime(t, plugin.RuntimeOptions{})
	p := loadIn(t, rt, "net_hostile", plugin.Config{})
	for _, export := range []string{"bad_handle", "bad_json", "bad_body", "before_any"} {
		if out, cerr := p.Invoke(context.Background(), export, nil); cerr != nil {
			t.Errorf("%s: %v (output %s)", export, cerr, out)
		}
	}
}

// TestNetworkNamespaceReserved: a module importing mcpwasm's own network
// namespace is refused at load, so it cannot reach the functions by their
// host-side names.
func TestNetworkNamespaceReserved(t *testing.T) {
	rt := newRuntime(t, plugin.RuntimeOptions{})
	data, err := os.ReadFile(fixture.Path(t, "net_reserved"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Load(context.Background(), plugin.Config{Name: "net_reserved", Wasm: data}); err == nil || !strings.Contains(err.Error(), "mcpwasm:host/net") {
		t.Fatalf("load: %v, want a refusal naming mcpwasm:host/net", err)
	}
}

// TestServedImportsChecked: an import of a function mcpwasm serves with
// the wrong type or kind is refused at load, naming the import as the
// module wrote it and both types, not at its first call.
func TestServedImportsChecked(t *testing.T) {
	rt := newRuntime(t, plugin.RuntimeOptions{})
	for name, want := range map[string]string{
		"net_shape":  "imports extism:host/env.http_request with type (i32, i32) -> i32; mcpwasm provides (i64, i64) -> i64",
		"user_shape": "imports extism:host/user.notify_progress as a global; it is a function (i64)",
	} {
		data, err := os.ReadFile(fixture.Path(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt.Load(context.Background(), plugin.Config{Name: name, Wasm: data}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: load: %v, want %q", name, err, want)
		}
	}
}
