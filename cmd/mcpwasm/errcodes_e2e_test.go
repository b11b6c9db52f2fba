package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
)

// documentedCode reports whether code is one JSON-RPC 2.0 or MCP defines,
// or one JSON-RPC leaves to implementations: the five predefined codes;
// -32000 to -32019, the implementation-defined server errors (protocol
// 2026-07-28 leaves them to SDKs); MCP's -32002 (resource not found before
// 2026-07-28), -32020 to -32022 and -32042; and any code outside the range
// JSON-RPC reserves (-32768 to -32000), which JSON-RPC leaves to
// applications (mcpwasm's -31403). Never 0.
func documentedCode(code int) bool {
	switch code {
	case -32700, -32600, -32601, -32602, -32603, -32002, -32020, -32021, -32022, -32042:
		return true
	}
	if code <= -32000 && code >= -32019 {
		return true
	}
	return code != 0 && (code > -32000 || code < -32768)
}

// codeReply is one JSON-RPC response as received.
type codeReply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// errorCase is a request that must be answered with an error; want, if
// non-zero, is the code it must have.
type errorCase struct {
	name string
	body string // a JSON-RPC message with id %q, or a raw line
	want int
}

// errorCases reach the server's error paths once a session exists: the
// protocol layer (go-sdk's checks), mcpwasm's handlers (tools, resources,
// prompts, completions, tasks, logging), and the plugin's own errors.
var errorCases = []errorCase{
	{"unknown method", `{"jsonrpc":"2.0","id":%q,"method":"no/such/method","params":{}}`, -32601},
	{"unknown tool", `{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, 0},
	{"tools/call params not an object", `{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":[1]}`, -32602},
	{"ping params not an object", `{"jsonrpc":"2.0","id":%q,"method":"ping","params":["a","b"]}`, -32602},
	{"missing resource", `{"jsonrpc":"2.0","id":%q,"method":"resources/read","params":{"uri":"test://no-such-resource"}}`, -32602},
	{"resource uri not a string", `{"jsonrpc":"2.0","id":%q,"method":"resources/read","params":{"uri":7}}`, -32602},
	{"unknown prompt", `{"jsonrpc":"2.0","id":%q,"method":"prompts/get","params":{"name":"nope"}}`, 0},
	{"prompt missing an argument", `{"jsonrpc":"2.0","id":%q,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"x"}}}`, -32602},
	{"completion of an unknown prompt", `{"jsonrpc":"2.0","id":%q,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a","value":""}}}`, 0},
	{"completion with a bad ref", `{"jsonrpc":"2.0","id":%q,"method":"completion/complete","params":{"ref":{"type":"ref/nothing"},"argument":{"name":"a","value":""}}}`, 0},
	{"logging level not a string", `{"jsonrpc":"2.0","id":%q,"method":"logging/setLevel","params":{"level":5}}`, 0},
	{"tasks/get unknown", `{"jsonrpc":"2.0","id":%q,"method":"tasks/get","params":{"taskId":"no-such-task"}}`, 0},
	{"subscribe without uri", `{"jsonrpc":"2.0","id":%q,"method":"resources/subscribe","params":{}}`, 0},
	{"initialize twice", `{"jsonrpc":"2.0","id":%q,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"again","version":"1"}}}`, -32600},
}

const initializeLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"codes","version":"1"}}}`

// checkReply fails the test unless r is an error with a documented code
// (and want's code, when set).
func checkReply(t *testing.T, transport string, c errorCase, r codeReply) {
	t.Helper()
	switch {
	case r.Error == nil:
		t.Errorf("%s: %s: answered without an error: %s", transport, c.name, r.Result)
	case r.Error.Code == nil || !documentedCode(*r.Error.Code):
		code := "missing"
		if r.Error.Code != nil {
			code = fmt.Sprint(*r.Error.Code)
		}
		t.Errorf("%s: %s: code %s is not a JSON-RPC or MCP code (%q)", transport, c.name, code, r.Error.Message)
	case c.want != 0 && *r.Error.Code != c.want:
		t.Errorf("%s: %s: code %d, want %d (%q)", transport, c.name, *r.Error.Code, c.want, r.Error.Message)
	}
}

// TestErrorCodesEveryPath drives every error path a client can reach over
// stdio and over Streamable HTTP (stateful and stateless) against the real
// binary, and checks each error's code is one JSON-RPC or MCP documents,
// never 0: a request before initialize, malformed lines, unknown methods,
// tools, resources and prompts, bad params, a prompt's missing argument, a
// second initialize, the 2026-07-28 header and _meta checks, and a request
// without a session id, which is HTTP 400 with -32600 (it was HTTP 200 and
// code 0).
func TestErrorCodesEveryPath(t *testing.T) {
	conf := fixture.Path(t, "conformance")
	t.Run("stdio", func(t *testing.T) { stdioCodes(t, conf) })
	t.Run("http", func(t *testing.T) { httpCodes(t, conf) })
	t.Run("http-stateless", func(t *testing.T) { statelessCodes(t, conf) })
}

func stdioCodes(t *testing.T, conf string) {
	cmd := exec.Command(binary, "serve", "--cache-dir", t.TempDir(), "--no-prefix", conf)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	replies := make(chan codeReply, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r codeReply
			if json.Unmarshal(sc.Bytes(), &r) == nil && len(r.ID) > 0 {
				replies <- r
			}
		}
		close(replies)
	}()
	send := func(line string) { fmt.Fprintln(stdin, line) }
	await := func(id string) codeReply {
		t.Helper()
		want, _ := json.Marshal(id)
		timeout := time.After(60 * time.Second)
		for {
			select {
			case r, ok := <-replies:
				if !ok {
					t.Fatalf("stdout closed before the answer to %s", id)
				}
				if string(r.ID) == string(want) {
					return r
				}
			case <-timeout:
				t.Fatalf("no answer to %s", id)
			}
		}
	}
	// Before initialize, and lines that are not requests.
	pre := []errorCase{
		{"a request before initialize", `{"jsonrpc":"2.0","id":%q,"method":"tools/list"}`, -32600},
		{"not JSON-RPC 2.0", `{"jsonrpc":"1.0","id":%q,"method":"ping"}`, -32600},
		{"no method", `{"jsonrpc":"2.0","id":%q}`, -32600},
	}
	for i, c := range pre {
		id := fmt.Sprintf("pre-%d", i)
		send(fmt.Sprintf(c.body, id))
		checkReply(t, "stdio", c, await(id))
	}
	send(`{not json`) // answered with id null: -32700
	for {
		r := <-replies
		if string(r.ID) == "null" {
			checkReply(t, "stdio", errorCase{name: "a line that is not JSON", want: -32700}, r)
			break
		}
	}
	send(initializeLine)
	if r := await("init"); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range errorCases {
		id := fmt.Sprintf("case-%d", i)
		send(fmt.Sprintf(c.body, id))
		checkReply(t, "stdio", c, await(id))
	}
}

// post sends body to url with headers, and returns the status and the
// JSON-RPC replies in the answer (a JSON body or server-sent events).
func post(t *testing.T, url, body string, headers map[string]string) (int, http.Header, []codeReply) {
	t.Helper()
	req, _ := mcptest.Post(context.Background(), url, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: 60 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out []codeReply
	add := func(data []byte) {
		var r codeReply
		if json.Unmarshal(data, &r) == nil && (r.Error != nil || r.Result != nil) {
			out = append(out, r)
		}
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(b), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				add([]byte(d))
			}
		}
	} else {
		add(b)
	}
	return resp.StatusCode, resp.Header, out
}

// one expects exactly one JSON-RPC reply.
func one(t *testing.T, what string, status int, replies []codeReply) codeReply {
	t.Helper()
	if len(replies) != 1 {
		t.Fatalf("%s: HTTP %d with %d JSON-RPC replies, want 1", what, status, len(replies))
	}
	return replies[0]
}

func httpCodes(t *testing.T, conf string) {
	url, _, _ := httpServeCmd(t, "--no-prefix", conf)
	// Without a session id: 400 and Invalid Request, with the request's id.
	for _, m := range []string{"tools/list", "tools/call", "tasks/get"} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%q,"params":{}}`, "nosession", m)
		status, _, replies := post(t, url, body, nil)
		r := one(t, m+" without a session", status, replies)
		if status != http.StatusBadRequest || string(r.ID) != `"nosession"` {
			t.Errorf("%s without a session: HTTP %d, id %s; want 400 and the request's id", m, status, r.ID)
		}
		checkReply(t, "http", errorCase{name: m + " without a session", want: -32600}, r)
	}
	// ping is answered before initialize (go-sdk allows it): not refused.
	if status, _, replies := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil); status != http.StatusOK || len(replies) != 1 || replies[0].Error != nil {
		t.Errorf("ping without a session: HTTP %d %+v, want 200 and a result", status, replies)
	}
	status, hdr, replies := post(t, url, initializeLine, nil)
	if r := one(t, "initialize", status, replies); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	session := map[string]string{"Mcp-Session-Id": hdr.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	for i, c := range errorCases {
		status, _, replies := post(t, url, fmt.Sprintf(c.body, fmt.Sprintf("case-%d", i)), session)
		if len(replies) == 0 {
			if status < 400 {
				t.Errorf("http: %s: HTTP %d and no JSON-RPC answer", c.name, status)
			}
			continue // a plain HTTP refusal: no JSON-RPC code to check
		}
		checkReply(t, "http", c, one(t, c.name, status, replies))
	}
	// A session id the server does not know: 404 (the client starts again).
	if status, _, replies := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": "no-such-session"}); status != http.StatusNotFound {
		t.Errorf("an unknown session: HTTP %d %+v, want 404", status, replies)
	}
}

// meta20260728 is the _meta of a 2026-07-28 request declaring no
// extension.
const meta20260728 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func statelessCodes(t *testing.T, conf string) {
	url, _, _ := httpServeCmd(t, "--stateless", "--no-prefix", conf)
	headers := func(method, name string) map[string]string {
		h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
		if name != "" {
			h["Mcp-Name"] = name
		}
		return h
	}
	for _, c := range []struct {
		errorCase
		method, name string
	}{
		{errorCase{"unknown tool", `{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"nope","arguments":{},` + meta20260728 + `}}`, 0}, "tools/call", "nope"},
		{errorCase{"Mcp-Name disagrees", `{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},` + meta20260728 + `}}`, -32020}, "tools/call", "other"},
		{errorCase{"tasks/get without the extension", `{"jsonrpc":"2.0","id":%q,"method":"tasks/get","params":{"taskId":"x",` + meta20260728 + `}}`, -32021}, "tasks/get", ""},
		{errorCase{"missing resource", `{"jsonrpc":"2.0","id":%q,"method":"resources/read","params":{"uri":"test://no-such-resource",` + meta20260728 + `}}`, -32602}, "resources/read", "test://no-such-resource"},
		{errorCase{"prompt missing an argument", `{"jsonrpc":"2.0","id":%q,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{},` + meta20260728 + `}}`, -32602}, "prompts/get", "test_prompt_with_arguments"},
		{errorCase{"_meta without client capabilities", `{"jsonrpc":"2.0","id":%q,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, -32602}, "tools/list", ""},
		{errorCase{"unknown method", `{"jsonrpc":"2.0","id":%q,"method":"no/such","params":{` + meta20260728 + `}}`, -32601}, "no/such", ""},
	} {
		status, _, replies := post(t, url, fmt.Sprintf(c.body, "s"), headers(c.method, c.name))
		if len(replies) == 0 {
			if status < 400 {
				t.Errorf("stateless: %s: HTTP %d and no JSON-RPC answer", c.name, status)
			}
			continue
		}
		checkReply(t, "stateless", c.errorCase, one(t, c.name, status, replies))
	}
}
