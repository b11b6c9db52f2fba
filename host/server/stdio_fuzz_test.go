package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/plugins/builtin"
)

var (
	fuzzOnce sync.Once
	fuzzSrv  *server.Server
	fuzzErr  error
	fuzzSeq  atomic.Uint64
)

// fuzzServer is the real server wiring with the built-in mdtools plugin
// (AssemblyScript, the smallest) and native_echo, shared by every input:
// each input is a session of its own, as each stdio client is.
func fuzzServer(t testing.TB) *server.Server {
	fuzzOnce.Do(func() {
		ctx := context.Background()
		rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: filepath.Join(os.TempDir(), "mcpwasm-test-cache")})
		if err != nil {
			fuzzErr = err
			return
		}
		reg := registry.New()
		srv := server.New(reg, server.Options{Name: "fuzz", Features: server.Features{Tools: true, Resources: true, Prompts: true, Completions: true}})
		for _, b := range builtin.Plugins() {
			if b.Name != "mdtools" {
				continue
			}
			cfg := plugin.Config{Name: b.Name, Source: "built-in " + b.File, Wasm: b.Wasm, Timeout: 2 * time.Second}
			p, err := rt.Load(ctx, cfg)
			if err != nil {
				fuzzErr = err
				return
			}
			e, err := reg.Add(ctx, p, registry.AddOptions{})
			if err != nil {
				fuzzErr = err
				return
			}
			srv.AddEntry(e)
		}
		srv.AddNativeEcho()
		srv.Ready()
		fuzzSrv = srv
	})
	if fuzzErr != nil {
		t.Fatal(fuzzErr)
	}
	return fuzzSrv
}

// FuzzStdio feeds arbitrary bytes to a stdio session after the handshake
// and checks: nothing panics, the session still answers a ping and
// tools/list afterwards, every line on stdout is a JSON-RPC 2.0 message, and
// the session ends when its input does.
//
//	go test -run '^$' -fuzz FuzzStdio -fuzztime 10m -parallel 1 ./host/server/
func FuzzStdio(f *testing.F) {
	for _, c := range malformedLines {
		f.Add([]byte(c.line))
	}
	for _, s := range []string{
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
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(fuzzSession)
}

// fuzzSession writes data to a fresh stdio session after the handshake,
// then checks the session still answers a ping and tools/list, that every
// line on stdout is JSON-RPC 2.0, and that it ends when its input does.
func fuzzSession(t *testing.T, data []byte) {
	{
		srv := fuzzServer(t)
		p := startStdio(t, srv, server.StdioOptions{MaxLineBytes: 1 << 16, DrainTimeout: 3 * time.Second})
		var seen [][]byte
		p.initialize("2025-06-18")
		if _, err := p.in.Write(append(data, '\n')); err != nil {
			t.Fatalf("writing the input: %v", err)
		}
		n := fuzzSeq.Add(1)
		ping := fmt.Sprintf(`"fuzz-ping-%d"`, n)
		list := fmt.Sprintf(`"fuzz-list-%d"`, n)
		p.send(`{"jsonrpc":"2.0","id":` + ping + `,"method":"ping"}`)
		p.send(`{"jsonrpc":"2.0","id":` + list + `,"method":"tools/list"}`)
		var gotPing, gotList bool
		deadline := time.After(20 * time.Second)
		for !gotPing || !gotList {
			select {
			case line, ok := <-p.lines:
				if !ok {
					t.Fatalf("the session ended before answering ping and tools/list; output:\n%s", bytes.Join(seen, []byte("\n")))
				}
				seen = append(seen, []byte(line))
				checkJSONRPC(t, line)
				var r reply
				json.Unmarshal([]byte(line), &r)
				switch string(r.ID) {
				case ping:
					gotPing = r.Error == nil
				case list:
					gotList = r.Error == nil && bytes.Contains(r.Result, []byte(`"native_echo"`)) &&
						bytes.Contains(r.Result, []byte(`"mdtools_toc"`))
					if !gotList {
						t.Fatalf("tools/list: %s", line)
					}
				}
			case <-deadline:
				t.Fatalf("no answer to ping and tools/list within 20s; input %q; output:\n%s", data, bytes.Join(seen, []byte("\n")))
			}
		}
		p.in.Close()
		for line := range p.lines {
			checkJSONRPC(t, line)
		}
		select {
		case <-p.done:
		case <-time.After(60 * time.Second):
			t.Fatal("the session did not end 60s after its input did")
		}
	}
}

// checkJSONRPC fails unless line is one JSON-RPC 2.0 message or a non-empty
// batch of them.
func checkJSONRPC(t *testing.T, line string) {
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
