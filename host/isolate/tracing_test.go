package isolate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/netguard"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/mcpwasm/mcpwasm/host/tracing/tracingtest"
)

// The caller's trace continues in a worker: a guest's HTTP request made
// in the worker is a client span under the caller's span, exported by the
// server (the worker has no exporter), and the request carries a
// traceparent naming that span.
func TestTraceContinuesInWorker(t *testing.T) {
	c, tp := tracingtest.Start(t)
	hs := tracingtest.NewTarget(t)
	port := hs.Port
	w := newWorker(t, "pdk_http", plugin.Config{Network: netguard.Options{
		Grants: []netguard.Grant{{Hosts: []string{"127.0.0.1"}, Ports: []int{port}, Schemes: []string{"http"}}}}}, confine.Auto)

	ctx, parent := tracing.Start(context.Background(), "parent")
	in, _ := json.Marshal(map[string]any{"request": map[string]any{"name": "fetch", "arguments": map[string]any{"url": hs.URL + "/hello"}}})
	if _, cerr := w.Invoke(ctx, abi.ExportCallTool, in, plugin.CallOptions{}); cerr != nil {
		t.Fatal(cerr)
	}
	parent.End(nil)
	tp.ForceFlush(context.Background())

	var p, get tracingtest.Span
	for _, s := range c.Spans() {
		switch {
		case s.Name == "parent":
			p = s
		case s.Name == "GET":
			get = s
		case s.Name != "":
			t.Errorf("span %q: the worker's plugin.call span duplicates the server's", s.Name)
		}
	}
	if get.SpanID == "" {
		t.Fatalf("no GET span from the worker: %+v", c.Spans())
	}
	if get.TraceID != p.TraceID || get.ParentSpanID != p.SpanID {
		t.Errorf("GET span in trace %s under %s, want trace %s under %s", get.TraceID, get.ParentSpanID, p.TraceID, p.SpanID)
	}
	if get.Attrs["http.response.status_code"] != int64(200) || get.Attrs["server.port"] != int64(port) || get.Service != p.Service {
		t.Errorf("GET span: %+v (service %q, want %q)", get, get.Service, p.Service)
	}
	got := hs.Traceparents()
	if want := "00-" + get.TraceID + "-" + get.SpanID + "-01"; len(got) != 1 || got[0] != want {
		t.Errorf("the server got traceparent %q, want %q", got, want)
	}
}
