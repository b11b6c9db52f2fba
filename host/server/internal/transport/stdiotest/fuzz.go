package stdiotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
)

// Seeds are inputs that seed FuzzStdio, beside MalformedLines.
var Seeds = []string{
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"\u0041","method":"tools/call","params":{"name":"native_echo","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":"mcpwasm-stdio-id:1","method":"ping"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"native_echo\"}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mdtools_toc","arguments":{"markdown":"# a\n## b"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mdtools_links","arguments":null}}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[]}`,
	`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"},1]`,
	`{"jsonrpc":"2.0","id":6,"result":{}}`,
	`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"::"}}`,
	`{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"nope"}}`,
	"\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\r\n",
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
	`{"jsonrpc":"2.0","id":10,"method":"ping","params":{"_meta":{"progressToken":1.5}}}`,
	strings.Repeat(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n", 20),
}

var fuzzSeq atomic.Uint64

// Session writes data to a fresh stdio session after the handshake, then
// checks the session still answers a ping and tools/list (naming each of
// tools), that every line on stdout is JSON-RPC 2.0, and that it ends when
// its input does.
func Session(t *testing.T, serve Serve, data []byte, tools ...string) {
	p := Start(t, serve, transport.StdioOptions{MaxLineBytes: 1 << 16, DrainTimeout: 3 * time.Second})
	var seen [][]byte
	p.Initialize("2025-06-18")
	if _, err := p.In.Write(append(data, '\n')); err != nil {
		t.Fatalf("writing the input: %v", err)
	}
	n := fuzzSeq.Add(1)
	ping := fmt.Sprintf(`"fuzz-ping-%d"`, n)
	list := fmt.Sprintf(`"fuzz-list-%d"`, n)
	p.Send(`{"jsonrpc":"2.0","id":` + ping + `,"method":"ping"}`)
	p.Send(`{"jsonrpc":"2.0","id":` + list + `,"method":"tools/list"}`)
	var gotPing, gotList bool
	deadline := time.After(20 * time.Second)
	for !gotPing || !gotList {
		select {
		case line, ok := <-p.Lines:
			if !ok {
				t.Fatalf("the session ended before answering ping and tools/list; output:\n%s", bytes.Join(seen, []byte("\n")))
			}
			seen = append(seen, []byte(line))
			CheckJSONRPC(t, line)
			var r mcptest.Reply
			json.Unmarshal([]byte(line), &r)
			switch string(r.ID) {
			case ping:
				gotPing = r.Error == nil
			case list:
				gotList = r.Error == nil
				for _, name := range tools {
					gotList = gotList && bytes.Contains(r.Result, []byte(`"`+name+`"`))
				}
				if !gotList {
					t.Fatalf("tools/list: %s", line)
				}
			}
		case <-deadline:
			t.Fatalf("no answer to ping and tools/list within 20s; input %q; output:\n%s", data, bytes.Join(seen, []byte("\n")))
		}
	}
	p.In.Close()
	for line := range p.Lines {
		CheckJSONRPC(t, line)
	}
	select {
	case <-p.Done:
	case <-time.After(60 * time.Second):
		t.Fatal("the session did not end 60s after its input did")
	}
}

// CheckJSONRPC fails unless line is one JSON-RPC 2.0 message or a non-empty
// batch of them.
func CheckJSONRPC(t *testing.T, line string) {
	t.Helper()
	var batch []json.RawMessage
	if json.Unmarshal([]byte(line), &batch) == nil {
		if len(batch) == 0 {
			t.Fatalf("empty batch on stdout")
		}
		for _, m := range batch {
			checkMessage(t, m, line)
		}
		return
	}
	checkMessage(t, []byte(line), line)
}

func checkMessage(t *testing.T, m []byte, line string) {
	t.Helper()
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(m, &msg); err != nil {
		t.Fatalf("not a JSON-RPC message on stdout (%v): %.300q", err, line)
	}
	has := func(k string) bool { _, ok := msg[k]; return ok }
	if string(msg["jsonrpc"]) != `"2.0"` {
		t.Fatalf("no \"jsonrpc\": \"2.0\": %.300q", line)
	}
	var e struct {
		Code    *int    `json:"code"`
		Message *string `json:"message"`
	}
	switch {
	case has("method"):
	case !has("id"):
		t.Fatalf("neither a method nor an id: %.300q", line)
	case has("result") == has("error"):
		t.Fatalf("a reply needs exactly one of result and error: %.300q", line)
	case has("error") && (json.Unmarshal(msg["error"], &e) != nil || e.Code == nil || e.Message == nil):
		t.Fatalf("an error needs a code and a message: %.300q", line)
	}
}

// StringSlots are requests with one client-controlled string in them, at
// the place marked S: every method's names, URIs, cursors, arguments,
// levels, tokens and ids. Outside fuzzers ended sessions through such
// strings (a DEL in a resources/read URI); a strings fuzzer puts arbitrary
// strings in each slot.
var StringSlots = []string{
	`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":S}}`,
	`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":S}}`,
	`{"jsonrpc":"2.0","id":1,"method":"resources/unsubscribe","params":{"uri":S}}`,
	`{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"cursor":S}}`,
	`{"jsonrpc":"2.0","id":1,"method":"resources/templates/list","params":{"cursor":S}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":S}}`,
	`{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{"cursor":S}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":S,"arguments":{}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mdtools_toc","arguments":{"markdown":S}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"native_echo","arguments":{"text":S}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mdtools_toc","arguments":{S:1}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"native_echo","arguments":{"text":"x"},"_meta":{"progressToken":S,"traceparent":S}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":S}}`,
	`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{S:S}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":S},"argument":{"name":"a","value":"v"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":S},"argument":{"name":S,"value":S}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":S}}`,
	`{"jsonrpc":"2.0","id":S,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":S,"method":"resources/read","params":{"uri":S}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":S,"reason":S}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":S,"progress":1,"message":S}}`,
	`{"jsonrpc":"2.0","id":1,"method":S}`,
}

// SlotLine puts s into slot (StringSlots, by slot/2), encoded by
// encoding/json (even slot) or written raw between quotes (odd slot: escapes
// such as \ud800 and \u007f, and invalid UTF-8, arrive as written). skip is
// set for a raw string with a line break, which splits the line.
func SlotLine(slot uint8, s string) (line string, skip bool) {
	tmpl := StringSlots[int(slot/2)%len(StringSlots)]
	var quoted string
	if slot%2 == 0 {
		b, _ := json.Marshal(s)
		quoted = string(b)
	} else {
		if strings.ContainsAny(s, "\n\r") {
			return "", true
		}
		quoted = `"` + s + `"`
	}
	return strings.ReplaceAll(tmpl, "S", quoted), false
}

// SlotSeeds are the strings that seed a strings fuzzer in every slot.
var SlotSeeds = []string{"file:///etc/passw\x7f", `\u0000\ud7ff\uffff`, `file:///etc/passw\u007f`, "\xff\xfe", `\ud800`, "x:{a}", ""}
