package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/host/tasks"
	"github.com/mcpwasm/mcpwasm/internal/eventually"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
)

// go-sdk's client has no tasks: these tests speak 2026-07-28 over HTTP
// with raw requests, each declaring its client capabilities in _meta.

const tasksExt = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// rpc is one raw 2026-07-28 client: its endpoint, token and capabilities.
type rpc struct {
	t     testing.TB
	url   string
	token string
	caps  string // client capabilities JSON
}

// taskReply is a JSON-RPC response.
type taskReply struct {
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int64          `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// call posts method with params (which gain the _meta), setting the
// routing headers from name ("" for none).
func (c rpc) call(method, name string, params map[string]any) taskReply {
	c.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": json.RawMessage(c.caps),
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := mcptest.Post(context.Background(), c.url, bytes.NewReader(body))
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw := mcptest.Body(resp.Body)
	var out taskReply
	if err := json.Unmarshal(raw, &out); err != nil {
		c.t.Fatalf("%s: HTTP %d, not JSON-RPC: %s", method, resp.StatusCode, raw)
	}
	return out
}

func (c rpc) tool(name string, args map[string]any) taskReply {
	c.t.Helper()
	return c.call("tools/call", name, map[string]any{"name": name, "arguments": args})
}

func (c rpc) task(method, id string, extra map[string]any) taskReply {
	c.t.Helper()
	p := map[string]any{"taskId": id}
	for k, v := range extra {
		p[k] = v
	}
	return c.call(method, id, p)
}

// await polls tasks/get until the task reaches one of the statuses.
func (c rpc) await(id string, want ...string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := c.task("tasks/get", id, nil)
		if r.Error != nil {
			c.t.Fatalf("tasks/get %s: %+v", id, r.Error)
		}
		for _, s := range want {
			if r.Result["status"] == s {
				return r.Result
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("task %s stays %v, want %v: %v", id, r.Result["status"], want, r.Result)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// taskServer serves the conformance fixture (which has the task tools)
// over stateless HTTP. stats reports its sandbox's load.
func taskServer(t testing.TB, opts server.Options, ho httpserve.Options) (url string, stats func() plugin.Stats) {
	return taskServerWith(t, opts, ho, plugin.Config{})
}

// taskServerModes is taskServer with the operator's task modes by tool.
func taskServerModes(t testing.TB, opts server.Options, ho httpserve.Options, modes map[string]string) (url string, stats func() plugin.Stats) {
	return taskServerWith(t, opts, ho, plugin.Config{TaskModes: modes})
}

// taskServerWith is taskServer with the plugin's configuration (its name,
// source and code are the conformance fixture's).
func taskServerWith(t testing.TB, opts server.Options, ho httpserve.Options, cfg plugin.Config) (url string, stats func() plugin.Stats) {
	t.Helper()
	url, _, stats = taskHarness(t, opts, ho, cfg)
	return url, stats
}

// taskHarness is taskServerWith that also returns the server.
func taskHarness(t testing.TB, opts server.Options, ho httpserve.Options, cfg plugin.Config) (url string, srv *server.Server, stats func() plugin.Stats) {
	t.Helper()
	rt := servertest.Runtime(t)
	cfg.Name = "conformance"
	opts.Features = server.Features{Tools: true}
	srv, _ = servertest.Serve(t, opts, servertest.Plugin(t, rt, "conformance", cfg))
	ho.Stateless = true
	hs := httptest.NewServer(httpserve.Handler(srv, ho))
	t.Cleanup(func() { hs.Close(); srv.CloseTasks() })
	return hs.URL + "/mcp", srv, rt.Stats
}

func taskID(t *testing.T, r taskReply) string {
	t.Helper()
	if r.Error != nil || r.Result["resultType"] != "task" {
		t.Fatalf("want a CreateTaskResult, got %+v %+v", r.Result, r.Error)
	}
	id, _ := r.Result["taskId"].(string)
	return id
}

func TestTaskLifecycle(t *testing.T) {
	rec := &servertest.Events{}
	c := rpc{t: t, url: first(taskServer(t, server.Options{Audit: rec.Log()}, httpserve.Options{})), caps: tasksExt}
	id := taskID(t, c.tool("slow_compute", map[string]any{"seconds": 0.2, "label": "a"}))
	got := c.await(id, "completed")
	// The detached run is audited as a call of its own.
	var runs int
	for _, ev := range rec.All() {
		if ev.Kind == audit.KindCall && ev.Tool == "slow_compute" && ev.Attrs["task"] == true && ev.Outcome == "ok" && ev.Plugin == "conformance" {
			runs++
		}
	}
	if runs != 1 {
		t.Fatalf("%d audited task runs, want 1", runs)
	}
	if !strings.Contains(servertest.MustJSON(got["result"]), `computed \"a\"`) || got["resultType"] != "complete" {
		t.Fatalf("completed task: %v", got)
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt", "ttlMs"} {
		if got[k] == nil {
			t.Fatalf("tasks/get lacks %s: %v", k, got)
		}
	}
	// A tool error is a completed task whose result is isError.
	id = taskID(t, c.tool("failing_job", nil))
	got = c.await(id, "completed", "failed")
	if got["status"] != "completed" || !strings.Contains(servertest.MustJSON(got["result"]), `"isError":true`) {
		t.Fatalf("failing_job: %v", got)
	}
	// A guest that crashes fails its task, with an error and no result.
	id = taskID(t, c.tool("protocol_error_job", nil))
	got = c.await(id, "completed", "failed")
	if got["status"] != "failed" || got["error"] == nil || got["result"] != nil {
		t.Fatalf("protocol_error_job: %v", got)
	}
	// A plain tool stays a plain call.
	if r := c.tool("greet", map[string]any{"name": "x"}); r.Result["taskId"] != nil || r.Result["resultType"] != "complete" {
		t.Fatalf("greet: %+v", r)
	}
	if r := c.task("tasks/get", "no-such-task", nil); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("unknown task: %+v", r)
	}
}

func TestTasksNeedTheExtension(t *testing.T) {
	url, _ := taskServer(t, server.Options{}, httpserve.Options{})
	with := rpc{t: t, url: url, caps: tasksExt}
	without := rpc{t: t, url: url, caps: `{}`}
	id := taskID(t, with.tool("slow_compute", map[string]any{"seconds": 30}))
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		r := without.task(m, id, map[string]any{"inputResponses": map[string]any{}})
		if r.Error == nil || r.Error.Code != -32021 {
			t.Fatalf("%s without the extension: %+v", m, r)
		}
	}
	// An optional task tool runs as a plain call for such a client...
	if r := without.tool("slow_compute", map[string]any{"seconds": 0}); r.Result["taskId"] != nil || r.Result["content"] == nil {
		t.Fatalf("slow_compute without the extension: %+v", r)
	}
	// ...and a tool that requires a task is refused, naming the extension.
	r := without.tool("failing_job", nil)
	if r.Error == nil || r.Error.Code != -32021 || !strings.Contains(servertest.MustJSON(r.Error.Data), "io.modelcontextprotocol/tasks") {
		t.Fatalf("failing_job without the extension: %+v", r)
	}
	// The routing header must name the task.
	if r := with.call("tasks/get", "other", map[string]any{"taskId": id}); r.Error == nil || r.Error.Code != -32020 {
		t.Fatalf("mismatched Mcp-Name: %+v", r)
	}
	with.task("tasks/cancel", id, nil)
}

func TestTaskCancelStopsGuest(t *testing.T) {
	// Leases of a minute: only the cancel itself, not a renewal, can stop
	// the guest within the 5s this test waits.
	opts := server.Options{Tasks: server.TaskOptions{Options: tasks.Options{Lease: time.Minute}}}
	url, stats := taskServer(t, opts, httpserve.Options{})
	c := rpc{t: t, url: url, caps: tasksExt}
	id := taskID(t, c.tool("slow_compute", map[string]any{"seconds": 60}))
	c.await(id, "working")
	eventually.True(t, 5*time.Second, func() bool { return stats().InFlight > 0 }, "the task's guest never started")
	r := c.task("tasks/cancel", id, nil)
	if r.Error != nil || r.Result["resultType"] != "complete" || r.Result["status"] != nil {
		t.Fatalf("cancel ack: %+v", r)
	}
	if got := c.await(id, "cancelled", "completed", "failed"); got["status"] != "cancelled" {
		t.Fatalf("after cancel: %v", got)
	}
	// The guest stopped: no call in flight, its memory given back.
	if !eventually.Within(5*time.Second, func() bool { st := stats(); return st.InFlight == 0 && st.MemoryInUse == 0 }) {
		t.Fatalf("after the cancel: %+v", stats())
	}
}

func TestTaskInputViaUpdate(t *testing.T) {
	url, _ := taskServer(t, server.Options{}, httpserve.Options{})
	// Without the elicitation capability, the guest's question fails the task.
	c := rpc{t: t, url: url, caps: tasksExt}
	id := taskID(t, c.tool("multi_input", nil))
	if got := c.await(id, "input_required", "failed"); got["status"] != "failed" || !strings.Contains(servertest.MustJSON(got["error"]), "-32021") {
		t.Fatalf("asking a client without elicitation: %v", got)
	}
	c.caps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	id = taskID(t, c.tool("multi_input", nil))
	got := c.await(id, "input_required")
	reqs, _ := got["inputRequests"].(map[string]any)
	if len(reqs) != 2 {
		t.Fatalf("inputRequests %v", got)
	}
	// A wrong kind of answer is refused; an answer nobody asked for ignored.
	if r := c.task("tasks/update", id, map[string]any{"inputResponses": map[string]any{
		"name": map[string]any{"roots": []any{}}}}); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("roots answer to an elicitation: %+v", r)
	}
	r := c.task("tasks/update", id, map[string]any{"inputResponses": map[string]any{
		"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}, "bogus": map[string]any{}}})
	if r.Error != nil || r.Result["resultType"] != "complete" {
		t.Fatalf("update: %+v", r)
	}
	got = c.await(id, "input_required")
	if reqs, _ := got["inputRequests"].(map[string]any); len(reqs) != 1 || reqs["confirm"] == nil {
		t.Fatalf("after a partial answer: %v", got)
	}
	c.task("tasks/update", id, map[string]any{"inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	got = c.await(id, "completed", "failed")
	if !strings.Contains(servertest.MustJSON(got["result"]), "name Ada, confirmed true") {
		t.Fatalf("final: %v", got)
	}
}

func TestTaskBoundToPrincipal(t *testing.T) {
	toks := servertest.StaticTokens(t, "alice 0123456789abcdef0123\nbob fedcba9876543210fedc\n")
	opts := server.Options{Tasks: server.TaskOptions{Options: tasks.Options{PerPrincipal: 1}}}
	url, _ := taskServer(t, opts, httpserve.Options{Access: httpserve.AccessOptions{Verifier: toks.Verify}})
	alice := rpc{t: t, url: url, token: "0123456789abcdef0123", caps: tasksExt}
	bob := rpc{t: t, url: url, token: "fedcba9876543210fedc", caps: tasksExt}
	id := taskID(t, alice.tool("slow_compute", map[string]any{"seconds": 60}))
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		if r := bob.task(m, id, nil); r.Error == nil || r.Error.Code != -32602 {
			t.Fatalf("bob's %s of alice's task: %+v", m, r)
		}
	}
	// One live task per principal: alice's second is refused, bob's not.
	if r := alice.tool("slow_compute", map[string]any{"seconds": 60}); r.Error == nil || !strings.Contains(r.Error.Message, "too many") {
		t.Fatalf("alice's second task: %+v", r)
	}
	bid := taskID(t, bob.tool("slow_compute", map[string]any{"seconds": 60}))
	alice.task("tasks/cancel", id, nil)
	bob.task("tasks/cancel", bid, nil)
	if got := alice.await(id, "cancelled"); got["status"] != "cancelled" {
		t.Fatal(got)
	}
}

func TestTaskRunsUnderItsOwnTimeLimit(t *testing.T) {
	// The plugin's call limit is 1s; the task's, 300ms.
	opts := server.Options{Tasks: server.TaskOptions{Options: tasks.Options{Timeout: 300 * time.Millisecond}}}
	cfg := plugin.Config{Timeout: time.Second}
	c := rpc{t: t, url: first(taskServerWith(t, opts, httpserve.Options{}, cfg)), caps: tasksExt}
	id := taskID(t, c.tool("slow_compute", map[string]any{"seconds": 0.9}))
	got := c.await(id, "completed", "failed")
	if got["status"] != "failed" || !strings.Contains(servertest.MustJSON(got["error"]), "time limit") {
		t.Fatalf("a task past its limit: %v", got)
	}
	// And a task may run longer than the plugin's per-call limit.
	opts.Tasks.Timeout = time.Minute
	c = rpc{t: t, url: first(taskServerWith(t, opts, httpserve.Options{}, cfg)), caps: tasksExt}
	id = taskID(t, c.tool("slow_compute", map[string]any{"seconds": 1.5}))
	if got := c.await(id, "completed", "failed"); got["status"] != "completed" {
		t.Fatalf("a 1.5s task with the plugin's 1s call limit: %v", got)
	}
}

func TestTaskModeFromConfig(t *testing.T) {
	url, _ := taskServerModes(t, server.Options{}, httpserve.Options{}, map[string]string{"greet": "required", "slow_compute": "forbidden"})
	with := rpc{t: t, url: url, caps: tasksExt}
	taskID(t, with.tool("greet", map[string]any{"name": "x"}))
	if r := with.tool("slow_compute", map[string]any{"seconds": 0}); r.Result["taskId"] != nil {
		t.Fatalf("forbidden by the operator, yet a task: %+v", r)
	}
	if r := (rpc{t: t, url: url, caps: `{}`}).tool("greet", map[string]any{"name": "x"}); r.Error == nil || r.Error.Code != -32021 {
		t.Fatalf("required by the operator: %+v", r)
	}
}

func first[A, B any](a A, _ B) A { return a }

// TestToolsListShowsTaskSupport: a 2026-07-28 tools/list shows each tool's
// execution.taskSupport as it is in force: the operator's `tasks = { greet
// = "required" }` over a plain tool, `slow_compute = "forbidden"` over the
// plugin's "optional" (no execution: forbidden is the default), and the
// plugin's own declarations elsewhere. Before, no tools/list showed any
// execution object (go-sdk's Tool has none), so an operator's override was
// invisible.
func TestToolsListShowsTaskSupport(t *testing.T) {
	url, _ := taskServerModes(t, server.Options{}, httpserve.Options{}, map[string]string{"greet": "required", "slow_compute": "forbidden"})
	r := (rpc{t: t, url: url, caps: tasksExt}).call("tools/list", "", nil)
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	got := map[string]any{}
	for _, x := range r.Result["tools"].([]any) {
		tool := x.(map[string]any)
		if e, ok := tool["execution"].(map[string]any); ok {
			got[tool["name"].(string)] = e["taskSupport"]
		} else {
			got[tool["name"].(string)] = nil
		}
	}
	for name, want := range map[string]any{"greet": "required", "slow_compute": nil, "failing_job": "required",
		"confirm_delete": "optional", "test_simple_text": nil} {
		if v, ok := got[name]; !ok || v != want {
			t.Errorf("tools/list: %s execution.taskSupport = %v (listed %v), want %v", name, v, ok, want)
		}
	}
}
