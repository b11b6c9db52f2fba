package plugin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// Every call runs in an instance of its own: the counter fixture counts
// its instance's calls in a global and in linear memory, and answers 1/1
// every time (an instance kept or pooled for a second call answers 2/2).
func TestEveryCallAFreshInstance(t *testing.T) {
	rt := newRuntime(t, plugin.RuntimeOptions{})
	p := loadIn(t, rt, "counter", plugin.Config{})
	for i := range 5 {
		out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
		if cerr != nil || !strings.Contains(string(out), `"text":"1/1"`) {
			t.Fatalf("call %d: %s %+v (an instance served more than one call?)", i, out, cerr)
		}
	}
	if s := rt.MemoryStats(); s.Live != 0 || s.Committed != 0 {
		t.Errorf("after the calls: %+v, want every instance closed", s)
	}
}
