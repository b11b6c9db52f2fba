package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"
)

// Reply is a JSON-RPC message from a server, as a test reading the raw
// stream sees it.
type Reply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// LinePeer is the client end of a newline-delimited JSON-RPC stream (MCP's
// stdio transport), for tests that write lines a client library would
// never send and read the answers as they are written.
type LinePeer struct {
	t testing.TB
	// In is the server's input.
	In io.WriteCloser
	// Lines are the server's output lines; closed when its output ends.
	Lines chan string
	// Log, when set, is shown with every failure (the server's stderr).
	Log fmt.Stringer
}

// NewLinePeer writes to in and reads out line by line (lines up to
// 64 MiB) into Lines until out ends.
func NewLinePeer(t testing.TB, in io.WriteCloser, out io.Reader) *LinePeer {
	p := &LinePeer{t: t, In: in, Lines: make(chan string, 4096)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.Lines <- sc.Text()
		}
		close(p.Lines)
	}()
	return p
}

func (p *LinePeer) fatalf(format string, args ...any) {
	p.t.Helper()
	if p.Log != nil {
		format, args = format+"\nstderr:\n%s", append(args, p.Log)
	}
	p.t.Fatalf(format, args...)
}

// Send writes one line.
func (p *LinePeer) Send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.In, line+"\n"); err != nil {
		p.fatalf("writing %.80q: %v", line, err)
	}
}

// Next returns the next reply, skipping notifications; every line must be
// JSON.
func (p *LinePeer) Next() (Reply, string) {
	p.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-p.Lines:
			if !ok {
				p.fatalf("the server closed its output")
			}
			var r Reply
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				p.fatalf("not JSON on stdout: %v: %.200q", err, line)
			}
			if r.Method != "" && r.ID == nil {
				continue
			}
			return r, line
		case <-deadline:
			p.fatalf("no reply from the server within 60s")
		}
	}
}

// Initialize makes the handshake at protocol version.
func (p *LinePeer) Initialize(version string) {
	p.t.Helper()
	p.Send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r, line := p.Next(); string(r.ID) != `"init"` || r.Error != nil {
		p.fatalf("initialize: %s", line)
	}
	p.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// ExpectError reads a reply and checks its id (raw JSON) and code.
func (p *LinePeer) ExpectError(what, id string, code int) {
	p.t.Helper()
	r, line := p.Next()
	if r.Error == nil || r.Error.Code != code || string(r.ID) != id {
		p.fatalf("%s: want error %d with id %s, got %s", what, code, id, line)
	}
}

// Answered reads one reply for each of ids (raw JSON), in any order, and
// checks that each succeeded and that they answer exactly ids.
func (p *LinePeer) Answered(what string, ids ...string) {
	p.t.Helper()
	got := map[string]bool{}
	for range ids {
		r, line := p.Next()
		if r.Error != nil {
			p.fatalf("%s failed: %s", what, line)
		}
		got[string(r.ID)] = true
	}
	for _, id := range ids {
		if !got[id] {
			p.fatalf("%s: answered %v, want ids %v", what, got, ids)
		}
	}
}

// Ping checks the server still answers.
func (p *LinePeer) Ping(id int) {
	p.t.Helper()
	p.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if r, line := p.Next(); string(r.ID) != fmt.Sprint(id) || r.Error != nil {
		p.fatalf("ping %d: %s", id, line)
	}
}
