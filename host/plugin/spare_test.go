package plugin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// A plugin called once builds nothing ahead.
func TestSpareNotBuiltForOneCall(t *testing.T) {
	rt := newRuntime(t, plugin.RuntimeOptions{})
	p := loadIn(t, rt, "echo", plugin.Config{})
	if _, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`)); cerr != nil {
		t.Fatal(cerr)
	}
	if s := rt.MemoryStats(); s.Live != 0 || s.Committed != 0 || p.Spares() != (plugin.SpareStats{}) {
		t.Errorf("after one call: %+v, %+v", s, p.Spares())
	}
}

// An instance built ahead and not taken is closed after a few seconds:
// a plugin called now and then holds no memory for it.
func TestSpareClosedWhenIdle(t *testing.T) {
	rt := newRuntime(t, plugin.RuntimeOptions{})
	p := loadIn(t, rt, "echo", plugin.Config{})
	for range 2 {
		if _, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`)); cerr != nil {
			t.Fatal(cerr)
		}
	}
	waitSpares(t, p, 1)
	for end := time.Now().Add(time.Minute); p.Spares().Discarded == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("an idle instance built ahead was kept a minute: %+v", p.Spares())
		}
	}
	if s := rt.MemoryStats(); s.Live != 0 || s.Committed != 0 {
		t.Errorf("after the idle spare closed: %+v", s)
	}
}

// A call that finds no room in the memory budget first closes the
// instances built ahead of other calls, instead of waiting for room they
// hold.
func TestSpareGivesWayToACall(t *testing.T) {
	defer plugin.SetSpareIdle(time.Hour)() // it must not just expire
	need := loadIn(t, newRuntime(t, plugin.RuntimeOptions{NoSpareInstances: true}), "sleep", plugin.Config{}).StartBytes()
	rt := newRuntime(t, plugin.RuntimeOptions{MemoryBudget: 2 * need})
	a := loadIn(t, rt, "sleep", plugin.Config{Timeout: 50 * time.Millisecond})
	for range 2 { // time out; the second builds ahead
		a.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
	}
	waitSpares(t, a, 1)
	b := loadIn(t, rt, "sleep", plugin.Config{Name: "b", Timeout: time.Minute, Concurrency: 2})
	stop := start(b, 2) // the first fits beside a's spare; the second needs its room
	defer stop()
	waitStats(t, rt, "both calls running", func(s plugin.Stats) bool {
		return s.InFlight == 2 && s.WaitingBudget == 0 && s.MemoryInUse == 2*need && a.Spares().Discarded == 1
	})
}

// waitSpares waits until the plugin has built want instances ahead.
func waitSpares(t *testing.T, p *plugin.Plugin, want int64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for p.Spares().Built < want {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute, %d instances built ahead, want %d", p.Spares().Built, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Calls run in instances built ahead of them, and each instance serves one
// call: the counter fixture counts its instance's calls in a global and in
// linear memory, and answers 1/1 every time. The instance built ahead is
// charged to the memory budget while it waits, and closing the plugin's
// spares gives everything back.
func TestSpareInstancesServeOneCallEach(t *testing.T) {
	rt := newRuntime(t, plugin.RuntimeOptions{})
	p := loadIn(t, rt, "counter", plugin.Config{})
	const calls = 6
	for i := range calls {
		out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
		if cerr != nil || !strings.Contains(string(out), `"text":"1/1"`) {
			t.Fatalf("call %d: %s %+v (an instance served more than one call?)", i, out, cerr)
		}
	}
	// The first two calls built their own instances (the second started
	// building ahead); each later one took the instance built ahead
	// (waiting for it if it was still being built).
	if s := p.Spares(); s.Taken != calls-2 {
		t.Errorf("%+v: want %d calls in instances built ahead", s, calls-2)
	}
	waitSpares(t, p, calls-1)
	if s := rt.MemoryStats(); s.Live != 2 || s.Committed != p.StartBytes() {
		t.Errorf("with one instance built ahead: %+v, want its 2 memories and %d bytes charged", s, p.StartBytes())
	}
	p.DropSpares()
	if s := rt.MemoryStats(); s.Live != 0 || s.Committed != 0 {
		t.Errorf("after the spare is closed: %+v", s)
	}
	if s := p.Spares(); s.Discarded != 1 {
		t.Errorf("%+v: want the unused spare discarded", s)
	}
	// No instance is built ahead once the spares are closed.
	if _, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`)); cerr != nil {
		t.Fatal(cerr)
	}
	if s := rt.MemoryStats(); s.Live != 0 || s.Committed != 0 {
		t.Errorf("a call after the spares closed left %+v", s)
	}
}

// A spare is built only while the memory budget has room for it and one
// more instance of the plugin: with room for one and a half instances,
// none is built and nothing stays charged after a call; with room for two,
// one is.
func TestSpareNeedsRoomForTwo(t *testing.T) {
	probe := loadIn(t, newRuntime(t, plugin.RuntimeOptions{NoSpareInstances: true}), "echo", plugin.Config{})
	need := probe.StartBytes()
	for _, c := range []struct {
		budget uint64
		built  bool
	}{{need * 3 / 2, false}, {2 * need, true}} {
		rt := newRuntime(t, plugin.RuntimeOptions{MemoryBudget: c.budget})
		p := loadIn(t, rt, "echo", plugin.Config{})
		for range 2 { // the second call builds ahead
			if _, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`)); cerr != nil {
				t.Fatal(cerr)
			}
		}
		if c.built {
			waitSpares(t, p, 1)
			if s := rt.MemoryStats(); s.Committed != need {
				t.Errorf("budget %d: %+v, want the spare's %d bytes charged", c.budget, s, need)
			}
			continue
		}
		if s := p.Spares(); s.Built != 0 || s.Skipped != 1 {
			t.Errorf("budget %d (need %d): %+v, want the spare skipped", c.budget, need, s)
		}
		if s := rt.MemoryStats(); s.Committed != 0 || s.Live != 0 {
			t.Errorf("budget %d: after the call %+v", c.budget, s)
		}
	}
}

// A call with folders never runs in an instance built ahead (which has no
// filesystem): it builds its own, with its mounts, and the spare waits for
// the next call without folders.
func TestSpareNotTakenByMountingCall(t *testing.T) {
	rt := newRuntime(t, plugin.RuntimeOptions{})
	base, err := plugin.Canonical(t.TempDir())
	must(t, err)
	must(t, os.WriteFile(filepath.Join(base, "a.txt"), []byte("from-the-mount"), 0o644))
	g, err := plugin.OpenGrant(base, true)
	must(t, err)
	p := loadIn(t, rt, "fsprobe", plugin.Config{Grants: []plugin.Grant{g}})
	in, _ := json.Marshal(map[string]any{"request": map[string]any{"name": "fs",
		"arguments": map[string]any{"ops": [][]string{{"read", filepath.Join(base, "a.txt")}}}}})
	for range 2 { // the second call builds ahead
		if _, cerr := p.Invoke(context.Background(), abi.ExportCallTool, in); cerr != nil {
			t.Fatal(cerr)
		}
	}
	waitSpares(t, p, 1)
	out, cerr := p.InvokeWith(context.Background(), abi.ExportCallTool, in,
		plugin.CallOptions{Mounts: []abi.Mount{{Path: base, ReadOnly: true}}})
	if cerr != nil || !strings.Contains(string(out), "from-the-mount") {
		t.Fatalf("the mounting call did not see its folder: %s %+v", out, cerr)
	}
	if s := p.Spares(); s.Taken != 0 {
		t.Errorf("%+v: a mounting call took the spare", s)
	}
}
