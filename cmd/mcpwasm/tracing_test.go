package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/tracing/tracingtest"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tracedStdio starts the real binary over stdio, tracing to c, and calls
// echo_echo once with a traceparent. The batch delay is an hour: spans can
// only reach c through the flush at exit.
func tracedStdio(t *testing.T, c *tracingtest.Collector, env []string, args ...string) (*mcp.ClientSession, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--cache-dir", t.TempDir()}, args...)...)
	cmd.Env = append(os.Environ(), append(env, "OTEL_BSP_SCHEDULE_DELAY=3600000")...)
	stderr := &bytes.Buffer{}
	cs := connectStdio(t, cmd, stderr)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{"a": 1},
		Meta: mcp.Meta{"traceparent": tracingtest.ClientTP}})
	if err != nil || res.IsError {
		t.Fatalf("echo: %v %v\nstderr:\n%s", res, err, stderr)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(c.Spans()); n != 0 {
		t.Fatalf("%d spans exported before exit, with an hour's batch delay", n)
	}
	return cs, cmd, stderr
}

// checkTrace waits for the call's spans: the request's, in the client's
// trace, naming the tool, and the plugin call's under it.
func checkTrace(t *testing.T, c *tracingtest.Collector, service string, stderr *bytes.Buffer) {
	t.Helper()
	req, ok := c.WaitFor(10*time.Second, func(s tracingtest.Span) bool {
		return s.TraceID == tracingtest.ClientTrace && s.Name == "tools/call echo_echo"
	})
	if !ok {
		t.Fatalf("no tools/call echo_echo span in the client's trace; got %+v\nstderr:\n%s", c.Spans(), stderr)
	}
	if req.ParentSpanID != "00f067aa0ba902b7" || req.Attrs["gen_ai.tool.name"] != "echo_echo" || req.Service != service {
		t.Errorf("request span: %+v", req)
	}
	if got := c.Find(func(s tracingtest.Span) bool { return s.Name == "plugin.call echo" && s.ParentSpanID == req.SpanID }); len(got) != 1 {
		t.Errorf("plugin.call spans under the request: %+v", got)
	}
}

// TestTracesFlushedAtStdinEOF: configured by the OTEL_* variables, a stdio
// tools/call carrying a traceparent is exported in that trace when the
// client closes stdin.
func TestTracesFlushedAtStdinEOF(t *testing.T) {
	c := tracingtest.New(t)
	cs, cmd, stderr := tracedStdio(t, c, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.URL, "OTEL_SERVICE_NAME=e2e-env"},
		fixture.Path(t, "echo"))
	cs.Close() // closes stdin, waits for the process
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
		t.Fatalf("the server did not exit at EOF\n%s", stderr)
	}
	checkTrace(t, c, "e2e-env", stderr)
}

// TestTracesFlushedAtSIGTERM: configured by [server.tracing], the spans
// are exported when SIGTERM stops the server.
func TestTracesFlushedAtSIGTERM(t *testing.T) {
	c := tracingtest.New(t)
	cfg := filepath.Join(t.TempDir(), "mcpwasm.toml")
	if err := os.WriteFile(cfg, []byte("[server.tracing]\nendpoint = \""+c.URL+"\"\nservice_name = \"e2e-config\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, cmd, stderr := tracedStdio(t, c, nil, "--config", cfg, fixture.Path(t, "echo"))
	cmd.Process.Signal(syscall.SIGTERM)
	checkTrace(t, c, "e2e-config", stderr)
}

// TestReloadTraced: a SIGHUP reload is a plugin.reload span, naming its
// cause, with the loads it made as children.
func TestReloadTraced(t *testing.T) {
	c := tracingtest.New(t)
	dir := fixture.Folder(t, "echo")
	cfg := filepath.Join(dir, "mcpwasm.toml")
	write := func(plugins string) {
		text := "[server.tracing]\nendpoint = \"" + c.URL + "\"\n\n" + plugins
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("[[plugin]]\nname = \"one\"\npath = \"echo.wasm\"\n")
	rs := startReload(t, nil, nil, "--config", cfg, "--watch=false")
	write("[[plugin]]\nname = \"one\"\npath = \"echo.wasm\"\n\n[[plugin]]\nname = \"two\"\npath = \"echo.wasm\"\n")
	if err := rs.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	rs.waitTools("one_echo,two_echo")
	reload, ok := c.WaitFor(30*time.Second, func(s tracingtest.Span) bool { return s.Name == "plugin.reload" })
	if !ok || reload.Attrs["mcpwasm.reload.cause"] != "SIGHUP" || reload.StatusError {
		t.Fatalf("plugin.reload: %+v (all: %+v)", reload, c.Spans())
	}
	load, ok := c.WaitFor(10*time.Second, func(s tracingtest.Span) bool {
		return s.Name == "plugin.load two" && s.ParentSpanID == reload.SpanID
	})
	if !ok {
		t.Fatalf("no plugin.load two under the reload: %+v", c.Spans())
	}
	for _, name := range []string{"plugin.compile two", "plugin.call two"} {
		if _, ok := c.WaitFor(10*time.Second, func(s tracingtest.Span) bool { return s.Name == name && s.ParentSpanID == load.SpanID }); !ok {
			t.Errorf("no %s under plugin.load two: %+v", name, c.Spans())
		}
	}
	// The first load, at start: a trace of its own, the plugin's
	// compilation and its list_tools call inside.
	first, ok := c.WaitFor(10*time.Second, func(s tracingtest.Span) bool { return s.Name == "plugin.load one" })
	if !ok || first.ParentSpanID != "" {
		t.Fatalf("the first load of one: %+v", first)
	}
	if got := c.Find(func(s tracingtest.Span) bool { return s.Name == "plugin.call one" && s.ParentSpanID == first.SpanID }); len(got) != 1 {
		t.Errorf("plugin.call one (list_tools) under the first load: %+v", got)
	}
}

// TestUnreachableCollectorCounted: with nothing listening at the
// endpoint, calls are answered and /metrics counts the spans lost.
func TestUnreachableCollectorCounted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String()
	ln.Close()
	cfg := filepath.Join(t.TempDir(), "mcpwasm.toml")
	if err := os.WriteFile(cfg, []byte("[server.tracing]\nendpoint = \""+endpoint+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, _, stderr := httpServeCmd(t, "--config", cfg, fixture.Path(t, "echo"))
	base := strings.TrimSuffix(url, "/mcp")
	cs := connectHTTP(t, url, stderr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for range 5 {
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{}}); err != nil || res.IsError {
			t.Fatalf("echo: %v %v", res, err)
		}
	}
	re := regexp.MustCompile(`(?m)^mcpwasm_trace_spans_lost_total\{reason="export_failed"\} (\d+)`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, page := get(t, base+"/metrics", "")
		if m := re.FindStringSubmatch(page); m != nil && m[1] != "0" {
			if !strings.Contains(page, "mcpwasm_trace_spans_exported_total 0") {
				t.Errorf("spans counted as exported to nothing:\n%s", page)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no lost spans counted:\n%s\nstderr:\n%s", page, stderr)
		}
	}
	if !strings.Contains(stderr.String(), "trace export failed") {
		t.Errorf("the export failure was not logged:\n%s", stderr)
	}
}
