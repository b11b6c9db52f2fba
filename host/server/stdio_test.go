package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
)

// stdioPeer drives ServeStdio in process, as a client on the other end of
// two pipes would.
type stdioPeer struct {
	t     testing.TB
	srv   *server.Server
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

// reply is a JSON-RPC message from the server.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// newStdioServer is a server with native_echo only (no Wasm), not yet
// Ready unless ready is set: tool requests wait until it is.
func newStdioServer(ready bool) *server.Server {
	srv := server.New(registry.New(), server.Options{Name: "stdio-test", Features: server.Features{Tools: true}})
	srv.AddNativeEcho()
	if ready {
		srv.Ready()
	}
	return srv
}

func startStdio(t testing.TB, srv *server.Server, o server.StdioOptions) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	o.In, o.Out = inR, outW
	p := &stdioPeer{t: t, srv: srv, in: inW, lines: make(chan string, 1024), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	go func() {
		err := srv.ServeStdio(context.Background(), o)
		outW.Close()
		p.done <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("writing %.80q: %v", line, err)
	}
}

// next returns the next message from the server, skipping notifications.
func (p *stdioPeer) next() (reply, string) {
	p.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatal("the server closed its output")
			}
			var r reply
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				p.t.Fatalf("not JSON on stdout: %v: %.200q", err, line)
			}
			if r.Method != "" && r.ID == nil {
				continue
			}
			return r, line
		case <-deadline:
			p.t.Fatal("no reply from the server within 30s")
		}
	}
}

func (p *stdioPeer) initialize(version string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r, line := p.next(); string(r.ID) != `"init"` || r.Error != nil {
		p.t.Fatalf("initialize: %s", line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// expectError reads a reply and checks its id (raw JSON) and code.
func (p *stdioPeer) expectError(what, id string, code int) {
	p.t.Helper()
	r, line := p.next()
	if r.Error == nil || r.Error.Code != code || string(r.ID) != id {
		p.t.Fatalf("%s: want error %d with id %s, got %s", what, code, id, line)
	}
}

// answered reads one reply for each of ids (raw JSON), in any order, and
// checks that each succeeded and that they answer exactly ids.
func (p *stdioPeer) answered(what string, ids ...string) {
	p.t.Helper()
	got := map[string]bool{}
	for range ids {
		r, line := p.next()
		if r.Error != nil {
			p.t.Fatalf("%s failed: %s", what, line)
		}
		got[string(r.ID)] = true
	}
	for _, id := range ids {
		if !got[id] {
			p.t.Fatalf("%s: answered %v, want ids %v", what, got, ids)
		}
	}
}

// ping checks the server still answers.
func (p *stdioPeer) ping(id int) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if r, line := p.next(); string(r.ID) != fmt.Sprint(id) || r.Error != nil {
		p.t.Fatalf("ping %d: %s", id, line)
	}
}

// malformedLines are lines that ended the server before the stdio checks,
// with the error each must get. They seed FuzzStdio too.
var malformedLines = []struct {
	name, line, id string
	code           int
}{
	{"not JSON", `hello`, "null", -32700},
	{"truncated JSON", `{"jsonrpc":"2.0","id":2,"method":"pi`, "null", -32700},
	{"UTF-8 BOM", "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`, "null", -32700},
	{"null", `null`, "null", -32600},
	{"empty batch", `[]`, "null", -32600},
	{"a number", `42`, "null", -32600},
	{"a string", `"ping"`, "null", -32600},
	{"wrong jsonrpc", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, "4", -32600},
	{"no jsonrpc", `{"id":5,"method":"ping"}`, "5", -32600},
	{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", -32600},
	{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null", -32600},
	{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, "null", -32600},
	{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "null", -32600},
	{"two objects on one line", `{"jsonrpc":"2.0","id":6,"method":"ping"}{"jsonrpc":"2.0","id":7,"method":"ping"}`, "null", -32700},
	{"method not a string", `{"jsonrpc":"2.0","id":8,"method":1}`, "8", -32600},
	{"no method, no result", `{"jsonrpc":"2.0","id":9}`, "9", -32600},
	{"repeated member", `{"jsonrpc":"2.0","id":10,"id":11,"method":"ping"}`, "null", -32600},
	{"deep nesting", `{"jsonrpc":"2.0","id":12,"method":"ping","params":{"a":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`, "12", -32600},
}

// TestStdioMalformedLines: every malformed line is answered as JSON-RPC 2.0
// says, and the server reads on (before, each ended the session).
func TestStdioMalformedLines(t *testing.T) {
	p := startStdio(t, newStdioServer(true), server.StdioOptions{MaxLineBytes: 4096})
	p.initialize("2025-06-18")
	for i, c := range malformedLines {
		p.send(c.line)
		p.expectError(c.name, c.id, c.code)
		p.ping(1000 + i)
	}
	// A line over the limit is skipped (not buffered) and answered.
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100_000) + `"}}`)
	p.expectError("line over the limit", "null", -32600)
	p.ping(2000)
	// Blank lines are not messages.
	p.send("")
	p.send(" \t\r")
	p.ping(2001)
}

// TestStdioIDsAsSent: the reply carries the id exactly as the client sent
// it, where go-sdk alone answered 1.5 as 1 and a 30-digit id as
// -9223372036854775808.
func TestStdioIDsAsSent(t *testing.T) {
	p := startStdio(t, newStdioServer(true), server.StdioOptions{})
	p.initialize("2025-06-18")
	for _, id := range []string{`1.5`, `123456789012345678901234567890`, `-0`, `1e3`, `1E400`, `9007199254740993`,
		`-9007199254740993`, `"\u0041"`, `"a\/b"`, `"mcpwasm-stdio-id:1"`, `"<&>"`, `7`, `-7`, `"plain"`, `""`} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"native_echo","arguments":{"x":1}}}`)
		r, line := p.next()
		if string(r.ID) != id || r.Error != nil {
			t.Fatalf("id %s: got %s", id, line)
		}
	}
}

// TestStdioDuplicateInFlight: a request reusing the id of one in flight is
// refused with that id (before, it got no answer at all); the first still
// gets its reply, and the id is free again afterwards.
func TestStdioDuplicateInFlight(t *testing.T) {
	srv := newStdioServer(false) // tool calls wait until Ready: they stay in flight
	p := startStdio(t, srv, server.StdioOptions{})
	p.initialize("2025-06-18")
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"native_echo","arguments":{"id":` + id + `}}}`
	}
	for _, id := range []string{`5`, `"five"`, `5.5`} {
		p.send(call(id))
	}
	for _, id := range []string{`5`, `"five"`, `5.5`} {
		p.send(call(id))
		p.expectError("duplicate "+id, id, -32600)
	}
	srv.Ready()
	p.answered("a first request", `5`, `"five"`, `5.5`)
	p.send(call(`5.5`))
	if r, line := p.next(); string(r.ID) != `5.5` || r.Error != nil {
		t.Fatalf("id reused after its reply: %s", line)
	}
}

// TestStdioCancelMappedID: a cancellation names the request the client
// means; go-sdk alone would read requestId 1.5 as 1 and cancel another one.
func TestStdioCancelMappedID(t *testing.T) {
	srv := newStdioServer(false)
	p := startStdio(t, srv, server.StdioOptions{})
	p.initialize("2025-06-18")
	for _, id := range []string{`1`, `1.5`} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"native_echo","arguments":{}}}`)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`)
	// A cancellation of an unknown mapped id is dropped, not read as 2.
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2.5}}`)
	r, line := p.next()
	if string(r.ID) != `1.5` || r.Error == nil {
		t.Fatalf("want the cancelled request's error reply first, got %s", line)
	}
	srv.Ready()
	if r, line := p.next(); string(r.ID) != `1` || r.Error != nil {
		t.Fatalf("request 1 was cancelled or lost: %s", line)
	}
}

// TestStdioBatches: a batch gets one reply array, with an error in it for
// each invalid element; from protocol 2025-06-18 batches are refused.
func TestStdioBatches(t *testing.T) {
	p := startStdio(t, newStdioServer(true), server.StdioOptions{})
	p.initialize("2025-03-26")
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},1,{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2.5,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	select {
	case line := <-p.lines:
		var rs []reply
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
	p.send(`[{"jsonrpc":"2.0","method":"notifications/x"}]`) // notifications only: no reply
	p.ping(3)

	p2 := startStdio(t, newStdioServer(true), server.StdioOptions{})
	p2.initialize("2025-06-18")
	p2.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	p2.expectError("batch in 2025-06-18", "null", -32600)
	p2.ping(2)
}

// TestStdioStrayReplies: replies from the client that name no request of
// the server's are dropped, whatever their id.
func TestStdioStrayReplies(t *testing.T) {
	p := startStdio(t, newStdioServer(true), server.StdioOptions{})
	p.initialize("2025-06-18")
	for _, line := range []string{`{"jsonrpc":"2.0","id":1.5,"result":{}}`, `{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`} {
		p.send(line)
	}
	p.ping(1)
}

// TestStdioEOFDrain: at the end of input the requests in flight are
// answered before ServeStdio returns (go-sdk alone drops their replies).
func TestStdioEOFDrain(t *testing.T) {
	srv := newStdioServer(false)
	p := startStdio(t, srv, server.StdioOptions{})
	p.initialize("2025-06-18")
	p.send(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"native_echo","arguments":{"k":"v"}}}`)
	p.ping(1) // the call has been read
	p.in.Close()
	select {
	case err := <-p.done:
		t.Fatalf("ServeStdio returned (%v) with a request in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	srv.Ready()
	if r, line := p.next(); string(r.ID) != "42" || r.Error != nil {
		t.Fatalf("reply after EOF: %s", line)
	}
	select {
	case err := <-p.done:
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
	p := startStdio(t, newStdioServer(false), server.StdioOptions{DrainTimeout: 200 * time.Millisecond})
	p.initialize("2025-06-18")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"native_echo","arguments":{}}}`)
	p.ping(2)
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatal("ServeStdio still waiting 30s after EOF with a 200ms drain limit")
	}
}

// TestStdioGuestSeesID: over stdio the guest's context.id (ABI.md §2) is the
// request's id as the client sent it, for ids go-sdk keeps and for those the
// transport maps (the stdio transport records it in the request's extra
// header, which nothing else on the stdio path sets). It fails when the
// header is recorded under a key the handler does not read.
func TestStdioGuestSeesID(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "echo"})
	p := startStdio(t, srv, server.StdioOptions{})
	p.initialize("2025-06-18")
	for _, id := range []string{`7`, `"plain"`, `1.5`, `"\u0041"`, `123456789012345678901234567890`} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`)
		r, line := p.next()
		if string(r.ID) != id || r.Error != nil {
			t.Fatalf("id %s: got %s", id, line)
		}
		var res struct {
			StructuredContent struct {
				Context struct {
					ID json.RawMessage `json:"id"`
				} `json:"context"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatalf("id %s: %v: %s", id, err, line)
		}
		var want, got any
		json.Unmarshal([]byte(id), &want)
		json.Unmarshal(res.StructuredContent.Context.ID, &got)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("id %s: the guest saw context.id %s", id, res.StructuredContent.Context.ID)
		}
	}
}

// Requests in flight on stdin are bounded, by count and by bytes: past
// either bound a request is answered at once with -32000 and not run, the
// ones in flight are still answered, and once they are, requests are
// admitted again. The calls wait because the server is not yet Ready.
func TestStdioInFlightBounded(t *testing.T) {
	call := func(id int, pad int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"pad":%q}}}`,
			id, server.NativeEchoTool, strings.Repeat("x", pad))
	}
	for _, c := range []struct {
		name string
		o    server.StdioOptions
		pad  int
	}{
		{"count", server.StdioOptions{MaxInFlight: 3}, 0},
		{"bytes", server.StdioOptions{MaxInFlightBytes: int64(3 * len(call(1, 1000)))}, 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newStdioServer(false)
			p := startStdio(t, srv, c.o)
			p.initialize("2025-11-25")
			for id := 1; id <= 3; id++ {
				p.send(call(id, c.pad))
			}
			p.send(call(4, c.pad))
			p.expectError("a fourth request in flight", "4", -32000)
			srv.Ready()
			p.answered("a request admitted before the bound", "1", "2", "3")
			p.send(call(5, c.pad))
			if r, line := p.next(); string(r.ID) != "5" || r.Error != nil {
				t.Fatalf("after the others were answered: %s", line)
			}
		})
	}
}
