// Package stdiotest drives a stdio server in process, as a client on the
// other end of two pipes would: the tests and fuzzers of package transport
// (against a plain go-sdk server) and of package server (against the real
// wiring) share it. It is imported by tests only.
package stdiotest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
)

// Serve serves one client on o.In and o.Out until the input ends.
type Serve func(ctx context.Context, o transport.StdioOptions) error

// Peer is the client end of a stdio session.
type Peer struct {
	t testing.TB
	// In is the server's input.
	In *io.PipeWriter
	// Lines are the server's output lines; closed when it closes Out.
	Lines chan string
	// Done receives what Serve returned.
	Done chan error
}

// Reply is a JSON-RPC message from the server.
type Reply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Start runs serve on two pipes (it sets o.In and o.Out) until the test
// ends.
func Start(t testing.TB, serve Serve, o transport.StdioOptions) *Peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	o.In, o.Out = inR, outW
	p := &Peer{t: t, In: inW, Lines: make(chan string, 1024), Done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.Lines <- sc.Text()
		}
		close(p.Lines)
	}()
	go func() {
		err := serve(context.Background(), o)
		outW.Close()
		p.Done <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

// Send writes one line.
func (p *Peer) Send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.In, line+"\n"); err != nil {
		p.t.Fatalf("writing %.80q: %v", line, err)
	}
}

// Next returns the next message from the server, skipping notifications.
func (p *Peer) Next() (Reply, string) {
	p.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-p.Lines:
			if !ok {
				p.t.Fatal("the server closed its output")
			}
			var r Reply
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

// Initialize makes the handshake at protocol version.
func (p *Peer) Initialize(version string) {
	p.t.Helper()
	p.Send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r, line := p.Next(); string(r.ID) != `"init"` || r.Error != nil {
		p.t.Fatalf("initialize: %s", line)
	}
	p.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// ExpectError reads a reply and checks its id (raw JSON) and code.
func (p *Peer) ExpectError(what, id string, code int) {
	p.t.Helper()
	r, line := p.Next()
	if r.Error == nil || r.Error.Code != code || string(r.ID) != id {
		p.t.Fatalf("%s: want error %d with id %s, got %s", what, code, id, line)
	}
}

// Answered reads one reply for each of ids (raw JSON), in any order, and
// checks that each succeeded and that they answer exactly ids.
func (p *Peer) Answered(what string, ids ...string) {
	p.t.Helper()
	got := map[string]bool{}
	for range ids {
		r, line := p.Next()
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

// Ping checks the server still answers.
func (p *Peer) Ping(id int) {
	p.t.Helper()
	p.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if r, line := p.Next(); string(r.ID) != fmt.Sprint(id) || r.Error != nil {
		p.t.Fatalf("ping %d: %s", id, line)
	}
}

// MalformedLines are lines that ended the server before the stdio checks,
// with the error each must get. They seed the fuzzers too.
var MalformedLines = []struct {
	Name, Line, ID string
	Code           int
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
