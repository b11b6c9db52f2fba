package plugin_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// A guest asking to sleep u64::MAX ns reaches the host's nanosleep as -1. The
// sleep must last until the call's deadline, not end at once (a loop of such
// sleeps would spin the CPU).
func TestEndlessSleepLastsUntilDeadline(t *testing.T) {
	p, err := load(t, "sleep_forever", plugin.Config{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
	if cerr == nil || cerr.Category != abi.ErrTimeout {
		t.Fatalf("want a timeout, got output %q, error %+v", out, cerr)
	}
}
