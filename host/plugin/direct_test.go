package plugin_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// Every module this repository builds answers the same through the direct
// call (direct.go, with the kernel's state in Go) as through Extism's
// CallWithContext and the kernel: its declarations, and each tool called
// with no arguments and with the differential calls, the same output, or
// the same error category and message. Both ways run in the same loaded
// plugin, alternately. A call that times out either way is not compared:
// some fixtures run close to their limit on purpose.
func TestDirectCallsChangeNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (about half a minute): runs every module; not with -short")
	}
	rt := newRuntime(t, plugin.RuntimeOptions{})
	compared := 0
	both := func(p *plugin.Plugin, what, export string, input []byte, rand bool) []byte {
		restore := plugin.SetDirectCalls(false)
		out, cerr := p.Invoke(context.Background(), export, input)
		restore()
		out2, cerr2 := p.Invoke(context.Background(), export, input)
		if timedOut(cerr) || timedOut(cerr2) {
			return out // timing, not what the call does: slow fixtures run near their limit
		}
		compared++
		switch {
		case (cerr == nil) != (cerr2 == nil):
			t.Errorf("%s: %+v through Extism, %+v direct", what, cerr, cerr2)
		case cerr != nil && (cerr.Category != cerr2.Category || (cerr.Message != cerr2.Message && !rand)):
			t.Errorf("%s: %s %q through Extism, %s %q direct", what, cerr.Category, cerr.Message, cerr2.Category, cerr2.Message)
		case !bytes.Equal(out, out2) && !rand:
			t.Errorf("%s: answers differ:\n%.300s\n%.300s", what, out, out2)
		}
		return out
	}
	for _, f := range builtModules(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".wasm")
		wasm, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := rt.Load(context.Background(), plugin.Config{Name: name, Source: f, Wasm: wasm, Timeout: 500 * time.Millisecond})
		if err != nil {
			continue // refused at load: no call to compare
		}
		var listed []byte
		for _, export := range declExports {
			if out := both(p, name+" "+export, export, []byte(`{}`), false); export == abi.ExportListTools {
				listed = out
			}
		}
		if p.Exports(abi.ExportCallTool) {
			for _, req := range toolRequests(name, listed) {
				both(p, name+" "+req, abi.ExportCallTool, []byte(`{"request":`+req+`,"context":{}}`), random(req))
			}
		}
		p.Close(context.Background())
	}
	t.Logf("%d answers compared", compared)
}

// timedOut reports a call stopped at its time limit.
func timedOut(e *plugin.Error) bool { return e != nil && e.Category == abi.ErrTimeout }

// A direct call allocates what two wazero lookups and the instance cost:
// the echo's call_tool allocated 120 KB per call through CallWithContext,
// about 38 KB direct. The bound sits between, so it fails if calls fall
// back to CallWithContext or a lookup per kernel call comes back.
func TestDirectCallAllocates(t *testing.T) {
	p := loadIn(t, newRuntime(t, plugin.RuntimeOptions{}), "echo", plugin.Config{})
	input := []byte(`{"request":{"name":"echo","arguments":{"text":"the quick brown fox"}},"context":{}}`)
	// The least of five rounds: whatever else the process allocates
	// meanwhile (an earlier test's background compile) only adds.
	perCall := func() uint64 {
		const n = 20
		for range 5 { // warm up: pools, the compile
			p.Invoke(context.Background(), abi.ExportCallTool, input)
		}
		least := uint64(math.MaxUint64)
		for range 5 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range n {
				if _, cerr := p.Invoke(context.Background(), abi.ExportCallTool, input); cerr != nil {
					t.Fatal(cerr)
				}
			}
			runtime.ReadMemStats(&after)
			least = min(least, (after.TotalAlloc-before.TotalAlloc)/n)
		}
		return least
	}
	direct := perCall()
	restore := plugin.SetDirectCalls(false)
	viaExtism := perCall()
	restore()
	t.Logf("bytes allocated per call: direct %d, through CallWithContext %d", direct, viaExtism)
	if direct > 80<<10 {
		t.Errorf("a direct call allocates %d bytes, want under %d", direct, 80<<10)
	}
}
