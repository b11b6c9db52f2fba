package isolate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
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
	c := tracingtest.New(t)
	tp, err := tracing.Setup(tracing.Config{Endpoint: c.URL, Env: func(string) string { return "" }})
	if err != nil || tp == nil {
		t.Fatal(tp, err)
	}
	defer tp.Shutdown(context.Background())
	var mu sync.Mutex
	var got []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("traceparent"))
		mu.Unlock()
		fmt.Fprint(w, "hello")
	}))
	defer hs.Close()
	u, _ := url.Parse(hs.URL)
	port := 0
	fmt.Sscan(u.Port(), &port)
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
	mu.Lock()
	defer mu.Unlock()
	if want := "00-" + get.TraceID + "-" + get.SpanID + "-01"; len(got) != 1 || got[0] != want {
		t.Errorf("the server got traceparent %q, want %q", got, want)
	}
}
