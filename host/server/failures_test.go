package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFailureKinds calls one misbehaving plugin per failure kind and checks
// each comes back as an isError result with the right category — never a
// protocol error, a crash or a hang.
func TestFailureKinds(t *testing.T) {
	// Generous time for everything but the timeout cases, so a slow machine
	// (or -race) cannot turn another failure into a timeout.
	limits := plugin.Config{Timeout: 20 * time.Second, MemoryLimit: 8 << 20, MaxOutput: 4 << 20}
	cases := []struct {
		fixture, category, text string
	}{
		{"spin", "timeout", "time limit"},
		{"sleep", "timeout", "time limit"},
		{"recurse", "stack_overflow", "stack"},
		{"trap", "trap", "unreachable"},
		{"oob", "trap", "out of bounds"},
		{"divzero", "trap", "divide by zero"},
		{"grow_bomb", "out_of_memory", "memory"},
		{"kernel_bomb", "guest_error", "alloc failed"},
		{"exit0", "exit", "proc_exit 0"},
		{"exit3", "exit", "proc_exit 3"},
		{"guest_error", "guest_error", "boom from guest"},
		{"bad_json", "bad_output", "malformed"},
		{"bad_shape", "bad_output", "malformed"},
		{"big_output", "output_too_large", "limit"},
		{"panic_rust", "panic", "rust panic on purpose"},
		{"abort_msg", "panic", "assertion failed: index < length"},
	}
	var specs []loadSpec
	for _, c := range cases {
		cfg := limits
		if c.category == "timeout" {
			cfg.Timeout = 500 * time.Millisecond
		}
		if c.fixture == "big_output" {
			cfg.MemoryLimit = 32 << 20 // room to build 8 MiB, over the 4 MiB output cap
		}
		specs = append(specs, loadSpec{name: c.fixture, cfg: cfg})
	}
	srv, _ := newServer(t, false, specs...)
	cs := connect(t, srv, nil)
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			res := servertest.Call(t, cs, c.fixture, map[string]any{})
			if !res.IsError {
				t.Fatalf("want isError, got success: %s", servertest.Text(res))
			}
			if got := category(res); got != c.category {
				t.Fatalf("category = %q, want %q (text: %s)", got, c.category, servertest.Text(res))
			}
			if !strings.Contains(servertest.Text(res), c.text) {
				t.Fatalf("text %q does not mention %q", servertest.Text(res), c.text)
			}
		})
	}
	// After all that, the server still answers.
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("server stopped answering: %v", err)
	}
}

func TestTableGrowIsCapped(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "table_bomb"})
	res := servertest.Call(t, connect(t, srv, nil), "table_bomb", map[string]any{})
	if res.IsError || !strings.Contains(servertest.Text(res), "refused") {
		t.Fatalf("table.grow must be refused by the cap: %+v %s", res.Meta, servertest.Text(res))
	}
}

func TestInvalidArguments(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "typed"})
	cs := connect(t, srv, nil)
	res := servertest.Call(t, cs, "typed", map[string]any{"count": "not a number"})
	if !res.IsError || category(res) != "invalid_arguments" {
		t.Fatalf("want invalid_arguments, got %v %s", res.Meta, servertest.Text(res))
	}
	if res := servertest.Call(t, cs, "typed", map[string]any{"count": 3}); res.IsError {
		t.Fatalf("valid arguments refused: %s", servertest.Text(res))
	}
}

func TestInputTooLarge(t *testing.T) {
	srv, reg := newServer(t, false, loadSpec{name: "echo", cfg: plugin.Config{MemoryLimit: 2 << 20}})
	cs := connect(t, srv, nil)
	tool, _ := reg.Lookup("echo")
	big := strings.Repeat("x", tool.Plugin.MaxInput()+1)
	res := servertest.Call(t, cs, "echo", map[string]any{"text": big})
	if !res.IsError || category(res) != "input_too_large" {
		t.Fatalf("want input_too_large, got %v %s", res.Meta, servertest.Text(res)[:min(200, len(servertest.Text(res)))])
	}
	// An input the limit admits must reach the guest in full. (Echo needs
	// room for its output too, so send less than half the limit.)
	small := strings.Repeat("y", tool.Plugin.MaxInput()*2/5)
	res = servertest.Call(t, cs, "echo", map[string]any{"text": small})
	if res.IsError {
		t.Fatalf("input under the limit refused: %s", servertest.Text(res))
	}
	sc, _ := res.StructuredContent.(map[string]any)
	req, _ := sc["request"].(map[string]any)
	args, _ := req["arguments"].(map[string]any)
	if args["text"] != small {
		t.Fatalf("the guest did not receive the whole input")
	}
}

// TestHealthyPluginServesWhileAnotherSpins runs a spinning call and checks
// that echo keeps answering meanwhile, and the spinner ends at its limit.
func TestHealthyPluginServesWhileAnotherSpins(t *testing.T) {
	srv, _ := newServer(t, false,
		loadSpec{name: "spin", cfg: plugin.Config{Timeout: 2 * time.Second}},
		loadSpec{name: "echo"})
	cs := connect(t, srv, nil)
	done := make(chan *mcp.CallToolResult)
	go func() { done <- servertest.Call(t, cs, "spin", map[string]any{}) }()
	for i := 0; i < 20; i++ {
		if res := servertest.Call(t, cs, "echo", map[string]any{"i": i}); res.IsError {
			t.Fatalf("echo failed while spin runs: %s", servertest.Text(res))
		}
	}
	select {
	case res := <-done:
		t.Fatalf("spin returned before echo finished 20 calls: %v", res.Meta)
	default:
	}
	if res := <-done; category(res) != "timeout" {
		t.Fatalf("spin: %v", res.Meta)
	}
}

// TestCancellationStopsGuest cancels a spinning call from the client and
// checks the guest stops long before its 30 s limit.
func TestCancellationStopsGuest(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "spin", cfg: plugin.Config{Timeout: 30 * time.Second}})
	cs := connect(t, srv, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { servertest.WaitInFlight(t, srv, 1); cancel() }() // the guest is spinning
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spin", Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("a cancelled call must return an error to the canceller")
	}
	// The guest must be gone: the server drains promptly.
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	srv.Drain(dctx)
	if dctx.Err() != nil {
		t.Fatal("the cancelled guest kept running")
	}
}

// dropMidRequest sends method with params to a stateful (2025-11-25) HTTP
// server of fixture, then goes away mid-request — no
// notifications/cancelled, just a closed connection — and fails unless
// the guest stops (the server drains) within 15 s, well inside its 30 s
// limit.
func dropMidRequest(t *testing.T, fixture, method, params string) {
	t.Helper()
	srv, _ := newServer(t, false, loadSpec{name: fixture, cfg: plugin.Config{Timeout: 30 * time.Second}})
	hs := httptest.NewServer(httpserve.Handler(srv, httpserve.Options{}))
	defer hs.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":99,"method":"` + method + `","params":` + params + `}`
	req, _ := mcptest.Post(ctx, hs.URL, strings.NewReader(body))
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body) // an SSE stream: read until the deadline drops it
		resp.Body.Close()
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer dcancel()
	srv.Drain(dctx)
	if dctx.Err() != nil {
		t.Fatalf("the %s guest kept running after its HTTP request went away", method)
	}
}

// TestDroppedHTTPRequestStopsGuest: a client whose tools/call POST goes
// away mid-call stops the guest; go-sdk alone would let it run to its limit.
func TestDroppedHTTPRequestStopsGuest(t *testing.T) {
	dropMidRequest(t, "spin", "tools/call", `{"name":"spin","arguments":{}}`)
}

// TestDroppedHTTPRequestStopsReadAndPrompt: the same for resources/read
// and prompts/get, which before the one guest-request path (guest.go) ran
// on to their time limit (only the tool handler linked the HTTP request's
// context).
func TestDroppedHTTPRequestStopsReadAndPrompt(t *testing.T) {
	t.Run("resources/read", func(t *testing.T) { dropMidRequest(t, "hang", "resources/read", `{"uri":"hang://r"}`) })
	t.Run("prompts/get", func(t *testing.T) { dropMidRequest(t, "hang", "prompts/get", `{"name":"hang"}`) })
}

// TestCancellationStopsReadAndPrompt: a client's notifications/cancelled
// stops a resource read and a prompt as it stops a tool call.
func TestCancellationStopsReadAndPrompt(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "hang", cfg: plugin.Config{Timeout: 30 * time.Second}})
	cs := connect(t, srv, nil)
	for name, call := range map[string]func(context.Context) error{
		"read": func(ctx context.Context) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hang://r"})
			return err
		},
		"prompt": func(ctx context.Context) error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "hang"})
			return err
		},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(200 * time.Millisecond); cancel() }()
		if err := call(ctx); err == nil {
			t.Fatalf("%s: a cancelled request must return an error to the canceller", name)
		}
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	srv.Drain(dctx)
	if dctx.Err() != nil {
		t.Fatal("a cancelled guest kept running")
	}
}
