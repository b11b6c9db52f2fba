package server_test

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
)

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
