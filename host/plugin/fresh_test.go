package plugin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

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

// freshLanguages are the builds of testdata/fresh: a runtime that starts
// once per plugin (an image taken after initialisation) would have to
// reseed each of them to pass the tests below.
var freshLanguages = []string{"fresh_go", "fresh_tinygo"}

// callFresh calls tool of the fresh fixture p and decodes the JSON its
// text item holds into v.
func callFresh(t *testing.T, p *plugin.Plugin, tool string, v any) {
	t.Helper()
	out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{"request":{"name":"`+tool+`","arguments":{}},"context":{}}`))
	if cerr != nil {
		t.Fatalf("%s: %+v", tool, cerr)
	}
	var res struct {
		Content []struct{ Text string }
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("%s answered %s (%v)", tool, out, err)
	}
	if err := json.Unmarshal([]byte(res.Content[0].Text), v); err != nil {
		t.Fatalf("%s answered %q: %v", tool, res.Content[0].Text, err)
	}
}

// Fresh randomness on every call: 100 calls give 100 distinct values of
// math/rand, math/rand/v2 and crypto/rand, and of a math/rand value drawn
// while the package initialised (the one an image of the initialised
// runtime, copied into every call, would repeat); and each call is its
// instance's first.
func TestFreshRandomnessPerCall(t *testing.T) {
	for _, name := range freshLanguages {
		t.Run(name, func(t *testing.T) {
			p := loadIn(t, warmRuntime(t, plugin.RuntimeOptions{}), name, plugin.Config{})
			seen := map[string]map[string]bool{}
			for i := range 100 {
				var r struct {
					Math, MathV2, Seeded uint64
					Crypto               string
					Calls                int
				}
				callFresh(t, p, "random", &r)
				if r.Calls != 1 {
					t.Fatalf("call %d was its instance's call number %d", i, r.Calls)
				}
				for k, v := range map[string]string{"math/rand": fmt.Sprint(r.Math), "math/rand/v2": fmt.Sprint(r.MathV2),
					"crypto/rand": r.Crypto, "math/rand at init": fmt.Sprint(r.Seeded)} {
					if seen[k] == nil {
						seen[k] = map[string]bool{}
					}
					if seen[k][v] {
						t.Fatalf("call %d: %s answered %s again", i, k, v)
					}
					seen[k][v] = true
				}
			}
		})
	}
}

// The clock reads the call's time: a call's runtime starts after the call
// does (not at load, nor at an earlier call), and reads the time then.
func TestFreshClockPerCall(t *testing.T) {
	for _, name := range freshLanguages {
		t.Run(name, func(t *testing.T) {
			p := loadIn(t, warmRuntime(t, plugin.RuntimeOptions{}), name, plugin.Config{})
			for i := range 3 {
				before := time.Now().UnixNano()
				var c struct{ Now, Started, Calls int64 }
				callFresh(t, p, "clock", &c)
				after := time.Now().UnixNano()
				if c.Started < before || c.Now < c.Started || c.Now > after || c.Calls != 1 {
					t.Fatalf("call %d, made between %d and %d: runtime started at %d, now %d, call number %d",
						i, before, after, c.Started, c.Now, c.Calls)
				}
			}
		})
	}
}
