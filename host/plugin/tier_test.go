//go:build unix

package plugin_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// Calls that come before the machine code run on the lister's code
// (tier.go). Builds are held in these tests, so which tier answered is
// known, not raced.

const anyCall = `{"request":{"name":"x","arguments":{}},"context":{}}`

// Each interpreted call gets a fresh instance (the counter answers 1/1),
// and no build runs for them while held; once built, calls are compiled.
func TestFirstCallsInterpreted(t *testing.T) {
	rt := cachedRuntime(t, "off")
	release := plugin.HoldBuilds(rt)
	p, _ := loadAndList(t, rt, "counter", fixture.Bytes(t, "counter"), plugin.Config{})
	for i := range 3 {
		out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
		if cerr != nil || !strings.Contains(string(out), `"text":"1/1"`) {
			t.Fatalf("interpreted call %d: %s %+v (an instance served more than one call?)", i, out, cerr)
		}
	}
	if st := rt.LoadStats(); st.Interpreted != 3 || st.Compiles != 0 {
		t.Fatalf("load stats %+v: want 3 calls interpreted, nothing compiled", st)
	}
	release()
	if err := p.Compile(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`)); cerr != nil || !strings.Contains(string(out), `"text":"1/1"`) {
		t.Fatalf("compiled call: %s %+v", out, cerr)
	}
	if st := rt.LoadStats(); st.Interpreted != 3 || st.Compiles != 1 {
		t.Fatalf("load stats %+v: want the last call compiled", st)
	}
}

// The limits hold in the interpreter: time (a loop, and a call tree
// without loops), stack and memory, each with its category.
func TestInterpretedCallLimits(t *testing.T) {
	rt := cachedRuntime(t, "off")
	defer plugin.HoldBuilds(rt)()
	for _, c := range []struct {
		fixture string
		cfg     plugin.Config
		want    abi.ErrorCategory
	}{
		{"spin", plugin.Config{Timeout: 300 * time.Millisecond}, abi.ErrTimeout},
		{"calltree", plugin.Config{Timeout: 300 * time.Millisecond}, abi.ErrTimeout},
		{"recurse", plugin.Config{}, abi.ErrStackOverflow},
		{"grow_bomb", plugin.Config{MemoryLimit: 4 << 20}, abi.ErrOutOfMemory},
	} {
		p, _ := loadAndList(t, rt, c.fixture, fixture.Bytes(t, c.fixture), c.cfg)
		before := rt.LoadStats().Interpreted
		start := time.Now()
		_, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(anyCall))
		if cerr == nil || cerr.Category != c.want {
			t.Errorf("%s: got %+v, want %s", c.fixture, cerr, c.want)
		}
		if rt.LoadStats().Interpreted != before+1 {
			t.Errorf("%s: not interpreted", c.fixture)
		}
		t.Logf("%s: %v after %v", c.fixture, cerr, time.Since(start))
	}
}

// An interpreted call that has done nothing outside its sandbox when the
// machine code is ready is run again on it: nap sleeps 200 ms, the build
// is released meanwhile.
func TestInterpretedCallAbandonedForMachineCode(t *testing.T) {
	rt := cachedRuntime(t, "off")
	release := plugin.HoldBuilds(rt)
	p, _ := loadAndList(t, rt, "nap", fixture.Bytes(t, "nap"), plugin.Config{})
	type result struct {
		out  []byte
		cerr *plugin.Error
	}
	res := make(chan result, 1)
	go func() {
		out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(anyCall))
		res <- result{out, cerr}
	}()
	for rt.LoadStats().Interpreted == 0 {
		time.Sleep(time.Millisecond)
	}
	release()
	r := <-res
	if r.cerr != nil || !strings.Contains(string(r.out), "rested") {
		t.Fatalf("got %s %+v", r.out, r.cerr)
	}
	if st := rt.LoadStats(); st.Abandoned != 1 || st.Compiles != 1 {
		t.Fatalf("load stats %+v: want the interpreted run abandoned for the machine code", st)
	}
}

// progressCounter counts progress notifications; onProgress runs inside
// the first.
type progressCounter struct {
	n          atomic.Int32
	onProgress func()
}

func (c *progressCounter) Progress(context.Context, json.RawMessage) error {
	if c.n.Add(1) == 1 && c.onProgress != nil {
		c.onProgress()
	}
	return nil
}
func (c *progressCounter) Log(context.Context, json.RawMessage) error { return nil }
func (c *progressCounter) Request(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, nil
}
func (c *progressCounter) Notify(context.Context, string, json.RawMessage) error { return nil }

// A guest that has told its client something is never run again: the
// progress notification commits the call to the interpreter, even when
// the machine code is ready before the call ends (here: built while the
// notification is delivered). The client sees one progress, not two.
func TestInterpretedCallCommitsOnEffect(t *testing.T) {
	rt := cachedRuntime(t, "off")
	release := plugin.HoldBuilds(rt)
	p, _ := loadAndList(t, rt, "progress_late", fixture.Bytes(t, "progress_late"), plugin.Config{})
	cb := &progressCounter{onProgress: func() {
		release()
		p.WaitBuilt()
	}}
	out, cerr := p.InvokeWith(context.Background(), abi.ExportCallTool, []byte(anyCall), plugin.CallOptions{Callbacks: cb})
	if cerr != nil || !strings.Contains(string(out), "late") {
		t.Fatalf("got %s %+v", out, cerr)
	}
	if n := cb.n.Load(); n != 1 {
		t.Errorf("the client saw %d progress notifications, want 1 (the call was run twice?)", n)
	}
	if st := rt.LoadStats(); st.Interpreted != 1 || st.Abandoned != 0 {
		t.Errorf("load stats %+v: want one interpreted call, not abandoned", st)
	}
}
