package plugin_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/netguard"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/mcpwasm/mcpwasm/host/tracing/tracingtest"
)

// With tracing on, a guest's granted HTTP request is a client span under
// the plugin call (host, port, status, sizes; never the path or query),
// and carries a traceparent naming that span, so the server it reaches
// joins the trace. A refused request is a failed span and reaches no one.
func TestNetworkTraced(t *testing.T) {
	c, tp := tracingtest.Start(t)
	hs := tracingtest.NewTarget(t)
	port := hs.Port
	rt := warmRuntime(t, plugin.RuntimeOptions{})
	p := loadIn(t, rt, "pdk_http", plugin.Config{Network: netguard.Options{
		Grants: []netguard.Grant{{Hosts: []string{"127.0.0.1"}, Ports: []int{port}, Schemes: []string{"http"}}}}})

	ctx, parent := tracing.Start(context.Background(), "parent")
	for _, target := range []string{hs.URL + "/hello?token=s3cret", "http://127.0.0.1:1/refused?token=s3cret"} {
		in, _ := json.Marshal(map[string]any{"request": map[string]any{"name": "fetch", "arguments": map[string]any{"url": target}}})
		if _, cerr := p.Invoke(ctx, abi.ExportCallTool, in); cerr != nil {
			t.Fatal(cerr)
		}
	}
	parent.End(nil)
	tp.ForceFlush(context.Background())

	spans := c.Spans()
	byID := map[string]tracingtest.Span{}
	for _, s := range spans {
		byID[s.SpanID] = s
		for k, v := range s.Attrs {
			if str, ok := v.(string); ok && (strings.Contains(str, "s3cret") || strings.Contains(str, "/hello") || strings.Contains(str, "/refused")) {
				t.Errorf("span %s attribute %s = %q: a URL's path or query", s.Name, k, str)
			}
		}
	}
	var ok, refused tracingtest.Span
	for _, s := range spans {
		if s.Name == "GET" && s.Attrs["server.port"] == int64(port) {
			ok = s
		}
		if s.Name == "GET" && s.Attrs["server.port"] == int64(1) {
			refused = s
		}
	}
	if ok.SpanID == "" || refused.SpanID == "" {
		t.Fatalf("no GET spans: %+v", spans)
	}
	if call := byID[ok.ParentSpanID]; call.Name != "plugin.call pdk_http" || byID[call.ParentSpanID].Name != "parent" {
		t.Errorf("the GET span's parent is %q, under %q", call.Name, byID[call.ParentSpanID].Name)
	}
	if ok.Attrs["server.address"] != "127.0.0.1" || ok.Attrs["http.response.status_code"] != int64(200) ||
		ok.Attrs["http.response.body.size"] != int64(5) || ok.StatusError {
		t.Errorf("GET span: %+v", ok)
	}
	if refused.Attrs["error.type"] != netguard.ReasonPort || !refused.StatusError || refused.Attrs["http.response.status_code"] != nil {
		t.Errorf("refused GET span: %+v", refused)
	}
	got := hs.Traceparents()
	if want := "00-" + ok.TraceID + "-" + ok.SpanID + "-01"; len(got) != 1 || got[0] != want {
		t.Errorf("the server got traceparent %q, want %q", got, want)
	}
}
