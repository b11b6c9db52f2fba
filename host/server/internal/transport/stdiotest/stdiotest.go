// Package stdiotest drives a stdio server in process, as a client on the
// other end of two pipes would: the tests and fuzzers of package transport
// (against a plain go-sdk server) and of package server (against the real
// wiring) share it. It is imported by tests only.
package stdiotest

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
)

// Serve serves one client on o.In and o.Out until the input ends.
type Serve func(ctx context.Context, o transport.StdioOptions) error

// Peer is the client end of a stdio session: the line peer on the
// server's pipes, and what Serve returned.
type Peer struct {
	*mcptest.LinePeer
	// Done receives what Serve returned.
	Done chan error
}

// Start runs serve on two pipes (it sets o.In and o.Out) until the test
// ends.
func Start(t testing.TB, serve Serve, o transport.StdioOptions) *Peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	o.In, o.Out = inR, outW
	p := &Peer{LinePeer: mcptest.NewLinePeer(t, inW, outR), Done: make(chan error, 1)}
	go func() {
		err := serve(context.Background(), o)
		outW.Close()
		p.Done <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return p
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
