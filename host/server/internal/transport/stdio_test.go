package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
	"github.com/mcpwasm/mcpwasm/host/server/internal/transport/stdiotest"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoServer is a plain go-sdk server, none of package server's wiring,
// served by ServeStdio: the transport's tests stand at its own boundary. Its
// one tool, native_echo, answers its arguments, and as structured content
// the request's id as the handler saw it; until Ready, calls wait (they
// stay in flight), as package server's tool calls wait for the initial load.
type echoServer struct {
	mcp  *mcp.Server
	gate chan struct{}
	once sync.Once
}

func newEchoServer(ready bool) *echoServer {
	e := &echoServer{gate: make(chan struct{})}
	e.mcp = mcp.NewServer(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	e.mcp.AddTool(&mcp.Tool{Name: "native_echo", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-e.gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}},
				StructuredContent: map[string]any{"id": json.RawMessage(transport.RawRequestID(req.Extra))}}, nil
		})
	if ready {
		e.Ready()
	}
	return e
}

// Ready lets the tool calls run.
func (e *echoServer) Ready() { e.once.Do(func() { close(e.gate) }) }

func (e *echoServer) serve(ctx context.Context, o transport.StdioOptions) error {
	return transport.ServeStdio(ctx, e.mcp, o, slog.New(slog.DiscardHandler))
}

func startStdio(t testing.TB, e *echoServer, o transport.StdioOptions) *stdiotest.Peer {
	t.Helper()
	return stdiotest.Start(t, e.serve, o)
}

// TestStdioHandlerSeesID: a handler reads the request's id as the client
// sent it (RawRequestID), for ids go-sdk keeps and for those the transport
// maps.
func TestStdioHandlerSeesID(t *testing.T) {
	p := startStdio(t, newEchoServer(true), transport.StdioOptions{})
	p.Initialize("2025-06-18")
	for _, id := range []string{`7`, `"plain"`, `1.5`, `"\u0041"`, `123456789012345678901234567890`} {
		p.Send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"native_echo","arguments":{"x":1}}}`)
		r, line := p.Next()
		if string(r.ID) != id || r.Error != nil {
			t.Fatalf("id %s: got %s", id, line)
		}
		var res struct {
			StructuredContent struct {
				ID json.RawMessage `json:"id"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatalf("id %s: %v: %s", id, err, line)
		}
		if string(res.StructuredContent.ID) != id {
			t.Errorf("id %s: the handler saw %s", id, res.StructuredContent.ID)
		}
	}
}

// TestStdioMalformedLines: every malformed line is answered as JSON-RPC 2.0
// says, and the server reads on (before, each ended the session).
func TestStdioMalformedLines(t *testing.T) {
	p := startStdio(t, newEchoServer(true), transport.StdioOptions{MaxLineBytes: 4096})
	p.Initialize("2025-06-18")
	for i, c := range stdiotest.MalformedLines {
		p.Send(c.Line)
		p.ExpectError(c.Name, c.ID, c.Code)
		p.Ping(1000 + i)
	}
	// A line over the limit is skipped (not buffered) and answered.
	p.Send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100_000) + `"}}`)
	p.ExpectError("line over the limit", "null", -32600)
	p.Ping(2000)
	// Blank lines are not messages.
	p.Send("")
	p.Send(" \t\r")
	p.Ping(2001)
}

// TestStdioIDsAsSent: the reply carries the id exactly as the client sent
// it, where go-sdk alone answered 1.5 as 1 and a 30-digit id as
// -9223372036854775808.
func TestStdioIDsAsSent(t *testing.T) {
	p := startStdio(t, newEchoServer(true), transport.StdioOptions{})
	p.Initialize("2025-06-18")
	for _, id := range []string{`1.5`, `123456789012345678901234567890`, `-0`, `1e3`, `1E400`, `9007199254740993`,
		`-9007199254740993`, `"\u0041"`, `"a\/b"`, `"mcpwasm-stdio-id:1"`, `"<&>"`, `7`, `-7`, `"plain"`, `""`} {
		p.Send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"native_echo","arguments":{"x":1}}}`)
		r, line := p.Next()
		if string(r.ID) != id || r.Error != nil {
			t.Fatalf("id %s: got %s", id, line)
		}
	}
}

// TestStdioDuplicateInFlight: a request reusing the id of one in flight is
// refused with that id (before, it got no answer at all); the first still
// gets its reply, and the id is free again afterwards.
func TestStdioDuplicateInFlight(t *testing.T) {
	srv := newEchoServer(false) // tool calls wait until Ready: they stay in flight
	p := startStdio(t, srv, transport.StdioOptions{})
	p.Initialize("2025-06-18")
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"native_echo","arguments":{"id":` + id + `}}}`
	}
	for _, id := range []string{`5`, `"five"`, `5.5`} {
		p.Send(call(id))
	}
	for _, id := range []string{`5`, `"five"`, `5.5`} {
		p.Send(call(id))
		p.ExpectError("duplicate "+id, id, -32600)
	}
	srv.Ready()
	p.Answered("a first request", `5`, `"five"`, `5.5`)
	p.Send(call(`5.5`))
	if r, line := p.Next(); string(r.ID) != `5.5` || r.Error != nil {
		t.Fatalf("id reused after its reply: %s", line)
	}
}

// TestStdioCancelMappedID: a cancellation names the request the client
// means; go-sdk alone would read requestId 1.5 as 1 and cancel another one.
func TestStdioCancelMappedID(t *testing.T) {
	srv := newEchoServer(false)
	p := startStdio(t, srv, transport.StdioOptions{})
	p.Initialize("2025-06-18")
	for _, id := range []string{`1`, `1.5`} {
		p.Send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"native_echo","arguments":{}}}`)
	}
	p.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`)
	// A cancellation of an unknown mapped id is dropped, not read as 2.
	p.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2.5}}`)
	r, line := p.Next()
	if string(r.ID) != `1.5` || r.Error == nil {
		t.Fatalf("want the cancelled request's error reply first, got %s", line)
	}
	srv.Ready()
	if r, line := p.Next(); string(r.ID) != `1` || r.Error != nil {
		t.Fatalf("request 1 was cancelled or lost: %s", line)
	}
}

// TestStdioBatches: a batch gets one reply array, with an error in it for
// each invalid element; from protocol 2025-06-18 batches are refused.
func TestStdioBatches(t *testing.T) {
	p := startStdio(t, newEchoServer(true), transport.StdioOptions{})
	p.Initialize("2025-03-26")
	p.Send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},1,{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2.5,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	select {
	case line := <-p.Lines:
		var rs []mcptest.Reply
		if err := json.Unmarshal([]byte(line), &rs); err != nil || len(rs) != 4 {
			t.Fatalf("batch reply: %v: %s", err, line)
		}
		ids := map[string]int{}
		for _, r := range rs {
			code := 0
			if r.Error != nil {
				code = r.Error.Code
			}
			ids[string(r.ID)+fmt.Sprint(code)]++
		}
		if ids["10"] != 1 || ids["2.50"] != 1 || ids["null-32600"] != 1 || ids["1-32600"] != 1 {
			t.Fatalf("batch reply: %s", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no batch reply")
	}
	p.Send(`[{"jsonrpc":"2.0","method":"notifications/x"}]`) // notifications only: no reply
	p.Ping(3)

	p2 := startStdio(t, newEchoServer(true), transport.StdioOptions{})
	p2.Initialize("2025-06-18")
	p2.Send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	p2.ExpectError("batch in 2025-06-18", "null", -32600)
	p2.Ping(2)
}

// TestStdioStrayReplies: replies from the client that name no request of
// the server's are dropped, whatever their id.
func TestStdioStrayReplies(t *testing.T) {
	p := startStdio(t, newEchoServer(true), transport.StdioOptions{})
	p.Initialize("2025-06-18")
	for _, line := range []string{`{"jsonrpc":"2.0","id":1.5,"result":{}}`, `{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`} {
		p.Send(line)
	}
	p.Ping(1)
}

// TestStdioEOFDrain: at the end of input the requests in flight are
// answered before ServeStdio returns (go-sdk alone drops their replies).
func TestStdioEOFDrain(t *testing.T) {
	srv := newEchoServer(false)
	p := startStdio(t, srv, transport.StdioOptions{})
	p.Initialize("2025-06-18")
	p.Send(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"native_echo","arguments":{"k":"v"}}}`)
	p.Ping(1) // the call has been read
	p.In.Close()
	select {
	case err := <-p.Done:
		t.Fatalf("ServeStdio returned (%v) with a request in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	srv.Ready()
	if r, line := p.Next(); string(r.ID) != "42" || r.Error != nil {
		t.Fatalf("reply after EOF: %s", line)
	}
	select {
	case err := <-p.Done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ServeStdio did not return after the drain")
	}
}

// TestStdioEOFDrainBounded: a request that never finishes holds the end of
// input only for DrainTimeout.
func TestStdioEOFDrainBounded(t *testing.T) {
	p := startStdio(t, newEchoServer(false), transport.StdioOptions{DrainTimeout: 200 * time.Millisecond})
	p.Initialize("2025-06-18")
	p.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"native_echo","arguments":{}}}`)
	p.Ping(2)
	p.In.Close()
	select {
	case <-p.Done:
	case <-time.After(30 * time.Second):
		t.Fatal("ServeStdio still waiting 30s after EOF with a 200ms drain limit")
	}
}

// Requests in flight on stdin are bounded, by count and by bytes: past
// either bound a request is answered at once with -32000 and not run, the
// ones in flight are still answered, and once they are, requests are
// admitted again. The calls wait because the server is not yet ready.
func TestStdioInFlightBounded(t *testing.T) {
	call := func(id int, pad int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"pad":%q}}}`,
			id, "native_echo", strings.Repeat("x", pad))
	}
	for _, c := range []struct {
		name string
		o    transport.StdioOptions
		pad  int
	}{
		{"count", transport.StdioOptions{MaxInFlight: 3}, 0},
		{"bytes", transport.StdioOptions{MaxInFlightBytes: int64(3 * len(call(1, 1000)))}, 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newEchoServer(false)
			p := startStdio(t, srv, c.o)
			p.Initialize("2025-11-25")
			for id := 1; id <= 3; id++ {
				p.Send(call(id, c.pad))
			}
			p.Send(call(4, c.pad))
			p.ExpectError("a fourth request in flight", "4", -32000)
			srv.Ready()
			p.Answered("a request admitted before the bound", "1", "2", "3")
			p.Send(call(5, c.pad))
			if r, line := p.Next(); string(r.ID) != "5" || r.Error != nil {
				t.Fatalf("after the others were answered: %s", line)
			}
		})
	}
}
