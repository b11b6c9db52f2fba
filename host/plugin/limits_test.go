package plugin_test

import (
	"context"
	"strings"
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

// Tables count against the memory limit: 64 tables that may each grow to
// the per-table cap would hold 51 MB of table under an 8 MiB limit.
func TestTablesTogetherBoundedByMemoryLimit(t *testing.T) {
	p, err := load(t, "table_many", plugin.Config{MemoryLimit: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for _, tb := range p.Module.Tables {
		sum += tb.Max
	}
	if sum*plugin.TableElementBytes > 8<<20 {
		t.Errorf("the tables may grow to %d elements in all (%d bytes), past the 8 MiB limit", sum, sum*plugin.TableElementBytes)
	}
	out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
	if cerr != nil || !strings.Contains(string(out), "table.grow refused") {
		t.Fatalf("want the grows refused, got %q, %+v", out, cerr)
	}
}
