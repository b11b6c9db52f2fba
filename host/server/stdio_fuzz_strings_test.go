package server_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// stringSlots are requests with one client-controlled string in them, at
// the place marked S: every method's names, URIs, cursors, arguments,
// levels, tokens and ids. Outside fuzzers ended sessions through such
// strings (a DEL in a resources/read URI); FuzzStdioStrings puts arbitrary
// strings in each slot.
var stringSlots = []string{
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

// FuzzStdioStrings puts a fuzzed string into each slot of stringSlots,
// encoded by encoding/json (even bits) or written raw between quotes (odd
// bits: escapes such as \ud800 and \u007f, and invalid UTF-8, arrive as the
// fuzzer wrote them), and checks the session survives as FuzzStdio does.
//
//	go test -run '^$' -fuzz FuzzStdioStrings -fuzztime 10m -parallel 1 ./host/server/
func FuzzStdioStrings(f *testing.F) {
	for i := range stringSlots {
		for _, s := range []string{"file:///etc/passw\x7f", `\u0000\ud7ff\uffff`, `file:///etc/passw\u007f`, "\xff\xfe", `\ud800`, "x:{a}", ""} {
			f.Add(uint8(i*2+1), s)
			f.Add(uint8(i*2), s)
		}
	}
	f.Fuzz(func(t *testing.T, slot uint8, s string) {
		tmpl := stringSlots[int(slot/2)%len(stringSlots)]
		var quoted string
		if slot%2 == 0 {
			b, _ := json.Marshal(s)
			quoted = string(b)
		} else {
			if strings.ContainsAny(s, "\n\r") {
				t.Skip("a raw line break splits the line; FuzzStdio covers broken lines")
			}
			quoted = `"` + s + `"`
		}
		fuzzSession(t, []byte(strings.ReplaceAll(tmpl, "S", quoted)))
	})
}
