package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTasksNeedGoSDKHooks records why mcpwasm does not serve tasks (the
// io.modelcontextprotocol/tasks extension of 2026-07-28 and the 2025-11-25
// experimental tasks): go-sdk v1.8.0, which must carry every JSON-RPC
// message, gives a server no way to
//
//  1. answer a method outside its own table: tasks/get, tasks/update,
//     tasks/cancel (and tasks/result, tasks/list) are refused as
//     "unsupported" before any receiving middleware runs (checkRequest in
//     mcp/shared.go, which the HTTP transport also calls, answering 400);
//  2. see a tools/call request's "task" member: params are decoded into
//     CallToolParamsRaw, which has no such field, so middleware never sees
//     that a client asked for a task;
//  3. answer tools/call with a CreateTaskResult: mcp.Result has unexported
//     methods, so only go-sdk's own result types can be returned.
//
// Serving tasks without them would mean parsing and writing JSON-RPC
// beside go-sdk, which this project does not do. This test fails when a
// go-sdk upgrade lifts the first two limits, as the signal to build tasks
// on it (go-sdk issue #626).
func TestTasksNeedGoSDKHooks(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	var mu sync.Mutex
	seen := map[string]string{} // method -> params as middleware saw them
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p, _ := json.Marshal(req.GetParams())
			mu.Lock()
			seen[method] = string(p)
			mu.Unlock()
			return next(ctx, method, req)
		}
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	ts := httptest.NewServer(h)
	defer ts.Close()
	post := func(body string) string {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}

	out := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"task":{"ttl":60000}}}`)
	if !strings.Contains(out, `"done"`) {
		t.Fatalf("tools/call: %s", out)
	}
	mu.Lock()
	params := seen["tools/call"]
	mu.Unlock()
	if strings.Contains(params, "task") && strings.Contains(params, "60000") {
		t.Fatalf("middleware now sees the task member (%s): go-sdk can carry task requests; build tasks on it", params)
	}
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		out := post(`{"jsonrpc":"2.0","id":2,"method":"` + m + `","params":{"taskId":"x"}}`)
		mu.Lock()
		_, reached := seen[m]
		mu.Unlock()
		if reached || strings.Contains(out, `"result"`) || !strings.Contains(out, "unsupported") {
			t.Fatalf("%s: %s (reached middleware: %v): go-sdk may now let a server answer it; build tasks on it", m, out, reached)
		}
	}
}
