package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/mcpwasm/mcpwasm/internal/redistest"
)

// taskCall posts one raw 2026-07-28 request declaring the tasks extension
// (go-sdk's client has no tasks) and returns its result, or its error.
func taskCall(t *testing.T, url, method, name string, params map[string]any) (map[string]any, map[string]any) {
	t.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "scale", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := mcptest.Post(context.Background(), url, bytes.NewReader(body))
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	resp := mcptest.Do(t, req)
	raw := mcptest.Body(resp.Body)
	var out struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: HTTP %d: %s", method, resp.StatusCode, raw)
	}
	return out.Result, out.Error
}

func taskGet(t *testing.T, url, id string) map[string]any {
	t.Helper()
	res, rerr := taskCall(t, url, "tasks/get", id, map[string]any{"taskId": id})
	if rerr != nil {
		t.Fatalf("tasks/get %s via %s: %v", id, url, rerr)
	}
	return res
}

// awaitTask polls url until task id leaves the statuses in from.
func awaitTask(t *testing.T, url, id string, limit time.Duration, from ...string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		res := taskGet(t, url, id)
		s, _ := res["status"].(string)
		still := false
		for _, f := range from {
			still = still || s == f
		}
		if !still {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s still %s after %v", id, s, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestScaleOutTasks: three stateless replicas sharing tasks through a Redis
// the test starts. A task created through one replica is read through
// every replica, answered (tasks/update) and cancelled through others;
// when the replica running a task is killed, the task ends failed, with
// the reason, once its lease lapses — through the replicas still alive.
func TestScaleOutTasks(t *testing.T) {
	store := redistest.Start(t)
	dir := t.TempDir()
	cfg := fixture.Config(t, dir, fmt.Sprintf("[server.tasks]\nstore = %q\nlease = \"3s\"\n", store))
	kf := writeStateKey(t, strings.Repeat("0123456789abcdef", 4))
	urls := make([]string, 3)
	logs := make([]*fixture.Log, 3)
	for i := range urls {
		urls[i], _, logs[i] = httpServeCmd(t, "--stateless", "--no-prefix", "--config", cfg, "--state-key-file", kf, fixture.Path(t, "conformance"))
	}
	// The replica to kill is started apart, so the test holds its process.
	victimURL, victim, _ := httpServeCmd(t, "--stateless", "--no-prefix", "--config", cfg, "--state-key-file", kf, fixture.Path(t, "conformance"))

	call := func(url, tool string, args map[string]any) string {
		res, rerr := taskCall(t, url, "tools/call", tool, map[string]any{"name": tool, "arguments": args})
		if rerr != nil || res["resultType"] != "task" {
			t.Fatalf("tools/call %s via %s: %v %v\n%s", tool, url, res, rerr, logs[0].String())
		}
		return res["taskId"].(string)
	}

	t.Run("tasks/get through every replica", func(t *testing.T) {
		id := call(urls[0], "slow_compute", map[string]any{"seconds": 1, "label": "shared"})
		for _, u := range urls {
			if res := taskGet(t, u, id); res["taskId"] != id {
				t.Fatalf("via %s: %v", u, res)
			}
		}
		res := awaitTask(t, urls[2], id, 20*time.Second, "working")
		if res["status"] != "completed" || !strings.Contains(fmt.Sprint(res["result"]), "shared") {
			t.Fatalf("%v", res)
		}
	})

	t.Run("tasks/update through another replica", func(t *testing.T) {
		id := call(urls[1], "confirm_delete", map[string]any{"filename": "f.txt"})
		res := awaitTask(t, urls[2], id, 20*time.Second, "working")
		if res["status"] != "input_required" {
			t.Fatalf("%v", res)
		}
		if _, rerr := taskCall(t, urls[0], "tasks/update", id, map[string]any{"taskId": id, "inputResponses": map[string]any{
			"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}); rerr != nil {
			t.Fatal(rerr)
		}
		res = awaitTask(t, urls[2], id, 20*time.Second, "working", "input_required")
		if res["status"] != "completed" || !strings.Contains(fmt.Sprint(res["result"]), "deleted f.txt") {
			t.Fatalf("%v", res)
		}
	})

	t.Run("tasks/cancel through another replica", func(t *testing.T) {
		id := call(urls[0], "slow_compute", map[string]any{"seconds": 60})
		if _, rerr := taskCall(t, urls[1], "tasks/cancel", id, map[string]any{"taskId": id}); rerr != nil {
			t.Fatal(rerr)
		}
		if res := taskGet(t, urls[2], id); res["status"] != "cancelled" {
			t.Fatalf("%v", res)
		}
	})

	t.Run("the running replica dies", func(t *testing.T) {
		id := call(victimURL, "slow_compute", map[string]any{"seconds": 60})
		if res := taskGet(t, urls[0], id); res["status"] != "working" {
			t.Fatalf("%v", res)
		}
		victim.Process.Kill()
		victim.Wait()
		res := awaitTask(t, urls[1], id, 30*time.Second, "working")
		if res["status"] != "failed" || !strings.Contains(fmt.Sprint(res["error"]), "lease lapsed") || res["result"] != nil {
			t.Fatalf("a task whose replica died: %v", res)
		}
	})
}
