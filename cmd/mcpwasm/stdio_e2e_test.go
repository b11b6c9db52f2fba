package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/mcptest"
)

// strayHelperEnv makes this test binary act as `mcpwasm serve` with a
// goroutine that prints to stdout, as a dependency might (Extism's
// SetInputWithContext calls fmt.Println on a failed reset). Test only: see
// TestStdoutIsPrivate.
const strayHelperEnv = "MCPWASM_TEST_STRAY_STDOUT"

const strayLine = "STRAY LINE FROM A DEPENDENCY"

func init() {
	if os.Getenv(strayHelperEnv) != "1" {
		return
	}
	go func() {
		// Print once fd 1 has been pointed at stderr (serve is about to
		// read stdin), or after a second if it never is.
		for start := time.Now(); time.Since(start) < time.Second && !sameFile(1, 2); {
			time.Sleep(time.Millisecond)
		}
		for {
			fmt.Println(strayLine)
			time.Sleep(10 * time.Millisecond)
		}
	}()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func sameFile(a, b int) bool {
	var sa, sb syscall.Stat_t
	return syscall.Fstat(a, &sa) == nil && syscall.Fstat(b, &sb) == nil && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// stdioServer is a server process spoken to line by line, as a client that
// makes mistakes would: an mcptest.LinePeer on its stdin and stdout, its
// stderr shown with every failure.
type stdioServer struct {
	*mcptest.LinePeer
	cmd    *exec.Cmd
	stderr *syncBuffer
}

func startStdioServer(t *testing.T, cmd *exec.Cmd) *stdioServer {
	t.Helper()
	s := &stdioServer{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.LinePeer = mcptest.NewLinePeer(t, stdin, out)
	s.Log = s.stderr
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return s
}

// TestStdioMalformedLinesE2E: through the real binary, each line that ended
// the server (exit 1, no reply) is answered as JSON-RPC 2.0 says and the
// server keeps serving; ids come back as sent; it exits 0 at EOF.
func TestStdioMalformedLinesE2E(t *testing.T) {
	s := startStdioServer(t, exec.Command(binary, "serve", "--cache-dir", t.TempDir()))
	s.Initialize("2025-06-18")
	big := `{"jsonrpc":"2.0","id":99,"method":"ping","params":{"pad":"` + strings.Repeat("x", 16<<20) + `"}}`
	cases := []struct{ line, id string }{
		{`not json`, "null"},
		{`{"jsonrpc":"2.0","id":2,"method":"pi`, "null"},
		{"\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`, "null"},
		{`null`, "null"},
		{`[]`, "null"},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, "4"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","id":false,"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","id":5,"method":"ping"}{"jsonrpc":"2.0","id":6,"method":"ping"}`, "null"},
		{big, "null"},
	}
	for i, c := range cases {
		s.Send(c.line)
		r, line := s.Next()
		if r.Error == nil || (r.Error.Code != -32700 && r.Error.Code != -32600) || string(r.ID) != c.id {
			t.Fatalf("%.60q: want -32700/-32600 with id %s, got %.300s", c.line, c.id, line)
		}
		s.Ping(100 + i)
	}
	for _, id := range []string{`1.5`, `123456789012345678901234567890`} {
		s.Send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if r, line := s.Next(); string(r.ID) != id || r.Error != nil {
			t.Fatalf("id %s: got %s", id, line)
		}
	}
	s.In.Close()
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\nstderr:\n%s", err, s.stderr)
	}
}

// TestStdioEOFAnswersInFlight: a request sent just before stdin closes is
// answered before the server exits (8 times in 20 it was lost). The call
// waits for the built-in plugins to load, so it is still in flight at EOF.
func TestStdioEOFAnswersInFlight(t *testing.T) {
	cache := t.TempDir()
	for i := range 20 {
		cmd := exec.Command(binary, "serve", "--cache-dir", cache)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Stdin = strings.NewReader(strings.Join([]string{
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"eof","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"textkit_count","arguments":{"text":"a b c"}}}`,
		}, "\n") + "\n")
		if err := cmd.Run(); err != nil {
			t.Fatalf("run %d: %v\nstderr:\n%s", i, err, errb.String())
		}
		var answered bool
		for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
			var r mcptest.Reply
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("run %d: not JSON-RPC on stdout: %q", i, line)
			}
			if string(r.ID) == "1" {
				if r.Error != nil || !strings.Contains(string(r.Result), `"words"`) {
					t.Fatalf("run %d: the call failed: %s", i, line)
				}
				answered = true
			}
		}
		if !answered {
			t.Fatalf("run %d: no reply to the request sent before EOF\nstdout:\n%s\nstderr:\n%s", i, out.String(), errb.String())
		}
	}
}

// TestStdoutIsPrivate: once serve runs, what anything else in the process
// prints to stdout goes to stderr, and the client's stream stays JSON-RPC.
// The server is this test binary re-executed as `mcpwasm serve` with a
// goroutine printing to os.Stdout (see init above), standing in for a
// dependency's fmt.Println.
func TestStdoutIsPrivate(t *testing.T) {
	cmd := exec.Command(os.Args[0], "serve", "--cache-dir", t.TempDir())
	cmd.Env = append(os.Environ(), strayHelperEnv+"=1")
	s := startStdioServer(t, cmd)
	s.Initialize("2025-06-18")
	for i := 1; !strings.Contains(s.stderr.String(), strayLine); i++ {
		if i > 2000 {
			t.Fatalf("the helper never printed\nstderr:\n%s", s.stderr)
		}
		s.Ping(i) // fails on a stray line on stdout
		time.Sleep(5 * time.Millisecond)
	}
	for i := range 20 { // more lines are printed meanwhile
		s.Ping(10_000 + i)
		time.Sleep(5 * time.Millisecond)
	}
}
