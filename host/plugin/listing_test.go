package plugin_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// The reads of a cold load share one lister instance (listing.go).

var listExports = []struct{ export, key string }{
	{abi.ExportListTools, `"tools"`},
	{abi.ExportListResources, `"resources"`},
	{abi.ExportListResourceTemplates, `"resourceTemplates"`},
	{abi.ExportListPrompts, `"prompts"`},
}

const listInput = `{"request":{},"context":{"plugin":"p"}}`

// A plugin whose ABI probe and four lists are read from one instance gives
// each list as it gives it from an instance of its own: no read sees what
// the one before it left (output, error, input), and a standard-Go module
// runs its runtime's initialisation once.
func TestColdReadsShareOneInstance(t *testing.T) {
	for _, name := range []string{"sdk_c", "sdk_go"} {
		t.Run(name, func(t *testing.T) {
			data := fixture.Bytes(t, name)
			rt := cachedRuntime(t, "off")
			shared, _ := loadCold(t, rt, name, data)
			if shared.ABIVersion != abi.Version {
				t.Fatalf("ABI version %d read on the shared instance, want %d", shared.ABIVersion, abi.Version)
			}
			got := map[string]string{}
			for _, l := range listExports {
				out, cerr := shared.List(context.Background(), l.export, []byte(listInput))
				if cerr != nil {
					t.Fatalf("%s: %v", l.export, cerr)
				}
				got[l.export] = string(out)
			}
			if st := rt.LoadStats(); st.ListInstances != 1 {
				t.Fatalf("the probe and four lists made %d instances, want 1 (%+v)", st.ListInstances, st)
			}
			for _, l := range listExports {
				alone, _ := loadCold(t, cachedRuntime(t, "off"), name, data)
				out, cerr := alone.List(context.Background(), l.export, []byte(listInput))
				if cerr != nil {
					t.Fatalf("%s alone: %v", l.export, cerr)
				}
				if got[l.export] != string(out) || !strings.Contains(string(out), l.key) {
					t.Errorf("%s on the shared instance:\n%s\nfrom an instance of its own:\n%s", l.export, got[l.export], out)
				}
			}
		})
	}
}

func loadCold(t *testing.T, rt *plugin.Runtime, name string, data []byte) (*plugin.Plugin, plugin.LoadStats) {
	t.Helper()
	p, err := rt.Load(context.Background(), plugin.Config{Name: name, Source: name + ".wasm", Wasm: data, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p, rt.LoadStats()
}

// loadListing loads fixture name cold with a 300 ms limit and reads its
// list_prompts, which answers: the shared instance is then up.
func loadListing(t *testing.T, rt *plugin.Runtime, name string) *plugin.Plugin {
	t.Helper()
	p, err := rt.Load(context.Background(), plugin.Config{Name: name, Wasm: fixture.Bytes(t, name), Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	if _, cerr := p.List(context.Background(), abi.ExportListPrompts, []byte(listInput)); cerr != nil {
		t.Fatal(cerr)
	}
	return p
}

// A read that spins is stopped at its own time limit on the shared
// instance (and again compiled, List's retry); a read that traps drops the
// instance, and the next read gets a fresh one, which answers.
func TestColdReadLimits(t *testing.T) {
	rt := cachedRuntime(t, "off")
	p := loadListing(t, rt, "spin_list")
	ctx := context.Background()
	if _, cerr := p.List(ctx, abi.ExportListResources, []byte(listInput)); cerr == nil || cerr.Category != abi.ErrTrap {
		t.Fatalf("list_resources traps: got %v", cerr)
	}
	out, cerr := p.List(ctx, abi.ExportListPrompts, []byte(listInput))
	if cerr != nil || !strings.Contains(string(out), `"name":"p"`) {
		t.Fatalf("list_prompts after the trap: %s, %v", out, cerr)
	}
	if st := rt.LoadStats(); st.ListInstances != 2 {
		t.Fatalf("%d instances; want a second one after the trap (%+v)", st.ListInstances, st)
	}
	_, cerr = p.List(ctx, abi.ExportListTools, []byte(listInput))
	if cerr == nil || cerr.Category != abi.ErrTimeout {
		t.Fatalf("list_tools spins: got %v, want a timeout", cerr)
	}
	if st := rt.LoadStats(); st.Listers != 1 || st.Compiles != 1 {
		t.Fatalf("load stats %+v: want the spin stopped in the interpreter, then compiled and stopped again", st)
	}
}

// The shared instance holds memory, and its charge to the budget, only
// while the load reads: keeping the declarations, or the first compiled
// call, gives them back.
func TestColdReadInstanceReleased(t *testing.T) {
	echo := fixture.Bytes(t, "echo")
	for _, end := range []string{"KeepDeclarations", "first call"} {
		t.Run(end, func(t *testing.T) {
			rt := cachedRuntime(t, "off")
			p, _ := loadCold(t, rt, "echo", echo)
			if _, cerr := p.List(context.Background(), abi.ExportListTools, []byte(listInput)); cerr != nil {
				t.Fatal(cerr)
			}
			if n := rt.MemoryStats().Live; n == 0 {
				t.Fatal("no memory live while the load reads: the test would prove nothing")
			}
			switch end {
			case "KeepDeclarations":
				p.KeepDeclarations()
			default:
				if _, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{"request":{"name":"echo","arguments":{}},"context":{}}`)); cerr != nil {
					t.Fatal(cerr)
				}
			}
			if st := rt.MemoryStats(); st.Live != 0 || st.Committed != 0 {
				t.Fatalf("after %s, %d memories still live, %d bytes still charged to the budget", end, st.Live, st.Committed)
			}
		})
	}
}

// A cold load lists the module without interruption points, under the
// lister's guard (listguard.go): a loop-free call tree is stopped at its
// time limit (in the interpreter, and again compiled: List's retry), and
// recursion through large frames is stopped with a small stack: the Go
// heap allocated by the read stays near StackLimit, where the
// interpreter's own 2,000-frame ceiling would allow 32 MB.
func TestColdListGuard(t *testing.T) {
	rt := cachedRuntime(t, "off")
	p := loadListing(t, rt, "list_unbounded")
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, cerr := p.List(ctx, abi.ExportListResources, []byte(listInput))
	runtime.ReadMemStats(&after)
	if cerr == nil || cerr.Category != abi.ErrStackOverflow {
		t.Fatalf("list_resources recurses without end: got %v, want a stack overflow", cerr)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("the recursion allocated %d KiB", alloc>>10)
	if alloc > 3*plugin.StackLimit {
		t.Errorf("the recursion allocated %d MiB of Go heap; the guard bounds the stack at %d MiB", alloc>>20, plugin.StackLimit>>20)
	}
	done := make(chan *plugin.Error, 1)
	go func() {
		_, cerr := p.List(ctx, abi.ExportListTools, []byte(listInput))
		done <- cerr
	}()
	select {
	case cerr = <-done:
	case <-time.After(time.Minute): // a hang detector, not a measurement: the limit is 300 ms
		t.Fatal("list_tools's call tree was not stopped")
	}
	if cerr == nil || cerr.Category != abi.ErrTimeout {
		t.Fatalf("list_tools runs a call tree: got %v, want a timeout", cerr)
	}
	if st := rt.LoadStats(); st.Listers != 1 || st.Compiles != 1 || st.ListInstances != 2 {
		t.Fatalf("load stats %+v: want one lister (a second instance after the overflow), then one compile for the retry", st)
	}
}
