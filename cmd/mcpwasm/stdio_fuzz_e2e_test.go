package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
)

// outsideTemplates are requests with client strings at S, as an outside
// stdio fuzzer writes them: every method, its names, URIs, cursors,
// arguments, tokens and ids.
var outsideTemplates = []string{
	`{"jsonrpc":"2.0","id":I,"method":"resources/read","params":{"uri":S}}`,
	`{"jsonrpc":"2.0","id":I,"method":"resources/subscribe","params":{"uri":S}}`,
	`{"jsonrpc":"2.0","id":I,"method":"resources/templates/list","params":{"cursor":S}}`,
	`{"jsonrpc":"2.0","id":I,"method":"tools/list","params":{"cursor":S}}`,
	`{"jsonrpc":"2.0","id":I,"method":"prompts/get","params":{"name":S,"arguments":{S:S}}}`,
	`{"jsonrpc":"2.0","id":I,"method":"tools/call","params":{"name":S,"arguments":{}}}`,
	`{"jsonrpc":"2.0","id":I,"method":"tools/call","params":{"name":"mdtools_toc","arguments":{"markdown":S}}}`,
	`{"jsonrpc":"2.0","id":I,"method":"tools/call","params":{"name":"textkit_slugify","arguments":{"text":S}}}`,
	`{"jsonrpc":"2.0","id":I,"method":"tools/call","params":{"name":"units_convert","arguments":{"value":1,"from":S,"to":S}}}`,
	`{"jsonrpc":"2.0","id":I,"method":"tools/call","params":{"name":"mdtools_links","arguments":{S:S},"_meta":{"progressToken":S,"traceparent":S}}}`,
	`{"jsonrpc":"2.0","id":I,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":S},"argument":{"name":S,"value":S}}}`,
	`{"jsonrpc":"2.0","id":I,"method":"logging/setLevel","params":{"level":S}}`,
	`{"jsonrpc":"2.0","id":I,"method":S,"params":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":I,"reason":S}}`,
	`{"jsonrpc":"2.0","id":I,"method":"ping","params":{"_meta":{S:S}}}`,
}

// hostileString is a short string of the kinds that broke servers: DEL and
// C0/C1 controls, escapes of surrogates and noncharacters, invalid UTF-8,
// quotes and backslashes, long runs; written raw or JSON-encoded.
func hostileString(r *rand.Rand) string {
	pieces := []string{"\x7f", "\x00", "\x1b[31m", "\u0085", "\u2028", "\xff", "\xc3", "\\u007f", "\\ud800", "\\udfff", "\\uffff",
		"\\u0000", `"`, `\`, "file:///etc/passw", "x:{a}", "%00", "../../", "ui://", "\t", " ", "é", "😀", "mdtools_toc"}
	var b strings.Builder
	for n := r.IntN(6); n >= 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	if r.IntN(50) == 0 {
		b.WriteString(strings.Repeat("A", r.IntN(70000)))
	}
	s := b.String()
	if r.IntN(2) == 0 {
		j, _ := json.Marshal(s)
		return string(j)
	}
	return `"` + strings.NewReplacer("\n", "", "\r", "").Replace(s) + `"`
}

func hostileID(r *rand.Rand, i int) string {
	switch r.IntN(6) {
	case 0:
		return hostileString(r)
	case 1:
		return fmt.Sprintf("%d.5", i)
	case 2:
		return "1e400"
	}
	return fmt.Sprint(i)
}

// TestStdioOutsideFuzzE2E: 20,000 hostile lines, from two seeds, through
// the real binary serving the built-in plugins: the process never ends, it
// answers a ping after each seed's lines, every line it writes is JSON-RPC,
// and it exits 0 when its input ends.
func TestStdioOutsideFuzzE2E(t *testing.T) {
	fixture.Slow(t, "20,000 lines through the binary")
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			s := startStdioServer(t, exec.Command("nice", binary, "serve", "--cache-dir", t.TempDir()))
			s.Initialize("2025-06-18")
			done := make(chan string, 1)
			go func() { // the server must never block on a reader that lags
				for line := range s.Lines {
					var r mcptest.Reply
					if err := json.Unmarshal([]byte(line), &r); err != nil {
						done <- fmt.Sprintf("not JSON on stdout: %.200q", line)
						return
					}
					if string(r.ID) == `"fuzz-end"` {
						done <- ""
						return
					}
				}
				done <- "the server closed stdout"
			}()
			r := rand.New(rand.NewPCG(seed, seed))
			for i := 1; i <= 10000; i++ {
				tmpl := outsideTemplates[r.IntN(len(outsideTemplates))]
				line := strings.Replace(tmpl, "I", hostileID(r, i), 1)
				for strings.Contains(line, "S") {
					line = strings.Replace(line, "S", hostileString(r), 1)
				}
				if r.IntN(20) == 0 { // and some that are not JSON at all
					line = line[:r.IntN(len(line))]
				}
				s.Send(line)
			}
			s.Send(`{"jsonrpc":"2.0","id":"fuzz-end","method":"ping"}`)
			select {
			case msg := <-done:
				if msg != "" {
					t.Fatalf("%s\nstderr:\n%.4000s", msg, s.stderr)
				}
			case <-time.After(5 * time.Minute):
				t.Fatalf("no answer to the final ping within 5 minutes\nstderr:\n%.4000s", s.stderr)
			}
			s.In.Close()
			go func() {
				for range s.Lines {
				}
			}()
			if err := s.cmd.Wait(); err != nil {
				t.Fatalf("the server did not exit 0 at EOF: %v\nstderr:\n%.4000s", err, s.stderr)
			}
		})
	}
}
