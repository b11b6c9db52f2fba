package plugin_test

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// TestKernelFunctionsLookedUpOnce: a guest's calls into the Extism kernel
// cost no allocation each (kernel.go). echo's list_tools writes its ~120
// bytes of tools JSON one kernel store_u8 at a time; through Extism's own
// trampoline every one of those calls built a new wazero function (three
// allocations and a 10 KiB stack), so the call's allocations grew with its
// output: about 330 more than call_tool {}, against about 110 now (one
// per kernel call is Extism's own, the CurrentPlugin its host-function
// wrapper hands each call).
func TestKernelFunctionsLookedUpOnce(t *testing.T) {
	p := loadIn(t, newRuntime(t, plugin.RuntimeOptions{}), "echo", plugin.Config{})
	ctx := context.Background()
	call := func(export string, input []byte) func() {
		return func() {
			if _, cerr := p.Invoke(ctx, export, input); cerr != nil {
				t.Fatal(cerr)
			}
		}
	}
	list := testing.AllocsPerRun(20, call(abi.ExportListTools, nil))
	small := testing.AllocsPerRun(20, call(abi.ExportCallTool, []byte(`{}`)))
	t.Logf("allocations per call: list_tools %.0f, call_tool {} %.0f", list, small)
	if list > small+200 {
		t.Fatalf("list_tools allocates %.0f times per call, call_tool {} %.0f: the kernel functions are looked up per kernel call", list, small)
	}
}
