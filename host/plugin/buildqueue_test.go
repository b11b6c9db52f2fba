//go:build unix

package plugin_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// The called plugin comes first (buildqueue.go): with a standard-Go
// plugin, two TinyGo plugins and the echo queued for background builds,
// in that order, a call to another small plugin builds beside the first
// build under way, not after the queue; the background builds then go
// smallest first. Order and counts, not time: the first build (3.8 MB of
// standard Go) is the only one that may run when the call asks. (The two
// TinyGo modules, 0.28 and 0.31 MB, stood in for two more standard-Go ones,
// which cost 35 s under -race and showed nothing more.)
func TestCalledPluginBuildsFirst(t *testing.T) {
	fixture.Slow(t, "compiles a standard-Go module")
	rt := cachedRuntime(t, "off")
	var mu sync.Mutex
	var order []string
	callBeside := -1 // how many builds ran when the call's started
	plugin.SetBuildHook(rt, func(name string, urgent bool, beside int) {
		mu.Lock()
		defer mu.Unlock()
		if urgent {
			name += " (urgent)"
			callBeside = beside
		}
		order = append(order, name)
	})
	var background []*plugin.Plugin
	for _, name := range []string{"conformance", "sdk_tinygo", "fresh_tinygo", "echo"} {
		p, _ := loadAndList(t, rt, name, fixture.Bytes(t, name), plugin.Config{})
		background = append(background, p)
	}
	called, _ := loadAndList(t, rt, "counter", fixture.Bytes(t, "counter"), plugin.Config{})
	for _, p := range background {
		p.CompileIfCold()
	}

	out, cerr := called.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
	if cerr != nil || !strings.Contains(string(out), `1/1`) {
		t.Fatalf("the call: %s %+v", out, cerr)
	}
	var ready []string
	for _, p := range background[:3] {
		if p.MachineCodeReady() {
			ready = append(ready, p.Name())
		}
	}
	if len(ready) > 1 {
		t.Errorf("the call was answered after the builds of %v: it waited behind the queue", ready)
	}

	for _, p := range background {
		p.WaitBuilt() // not Compile: a call's wait would make the build urgent
	}
	mu.Lock()
	defer mu.Unlock()
	if callBeside != 1 {
		t.Errorf("the call's build started with %d builds running, want 1: beside the first background build, not after it", callBeside)
	}
	want := "[conformance counter (urgent) echo fresh_tinygo sdk_tinygo]"
	if got := fmt.Sprint(order); got != want {
		t.Errorf("builds started in the order %s, want %s (the first at once, the call's next, then smallest first)", got, want)
	}
}

// A plugin closed while its build waits in the queue is not built, and
// its Close does not wait for the builds ahead of it.
func TestCloseWhileQueuedSkipsBuild(t *testing.T) {
	rt := cachedRuntime(t, "off")
	var mu sync.Mutex
	var started []string
	plugin.SetBuildHook(rt, func(name string, _ bool, _ int) {
		mu.Lock()
		defer mu.Unlock()
		started = append(started, name)
	})
	big, _ := loadAndList(t, rt, "pdk_go", fixture.Bytes(t, "pdk_go"), plugin.Config{})
	small, err := rt.Load(context.Background(), plugin.Config{Name: "echo", Wasm: fixture.Bytes(t, "echo")})
	if err != nil {
		t.Fatal(err)
	}
	if _, cerr := small.List(context.Background(), abi.ExportListTools, []byte(`{}`)); cerr != nil {
		t.Fatal(cerr)
	}
	small.KeepDeclarations()
	big.CompileIfCold()
	small.CompileIfCold()
	if err := small.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if big.MachineCodeReady() {
		t.Errorf("closing the queued plugin waited for the build ahead of it (pdk_go's)")
	}
	big.WaitBuilt()
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(started) != "[pdk_go]" {
		t.Errorf("builds started: %v, want only pdk_go's (echo closed while queued)", started)
	}
}
