package wasmbin

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// assemble compiles testdata/name.wat with wat2wasm.
func assembleWAT(t testing.TB, name string) []byte {
	t.Helper()
	wat2wasm := fixture.Tool(t, "wat2wasm")
	out := filepath.Join(t.TempDir(), name+".wasm")
	if b, err := exec.Command(wat2wasm, filepath.Join("testdata", name+".wat"), "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, b)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

var testInterrupts = InterruptOptions{Module: "mcpwasm:sandbox", Name: "poll", GrowFailed: "grow_failed",
	StackLimit: 1 << 16, StackExhausted: "stack_exhausted", Fuel: 50}

// poller is the host side of the interruption points in these tests: it
// counts polls, hands out a little fuel, and stops the guest after limit
// polls (0: never).
type poller struct {
	polls, limit, growFails int
}

// run instantiates wasm (instrumented or not) in a fresh runtime with
// wazero's own termination checks off, and calls export.
func (p *poller) run(t testing.TB, wasm []byte, export string, args ...uint64) ([]uint64, error) {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(false))
	defer rt.Close(ctx)
	env := rt.NewHostModuleBuilder("env")
	env.NewFunctionBuilder().WithFunc(func(a, b int32) int32 { return a + b }).Export("host_add")
	if _, err := env.Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.NewHostModuleBuilder(testInterrupts.Module).NewFunctionBuilder().
		WithFunc(func(context.Context, api.Module) int32 {
			p.polls++
			if p.limit > 0 && p.polls >= p.limit {
				panic(sys.NewExitError(sys.ExitCodeDeadlineExceeded))
			}
			return testInterrupts.Fuel
		}).Export(testInterrupts.Name).
		NewFunctionBuilder().WithFunc(func() { p.growFails++ }).Export(testInterrupts.GrowFailed).
		NewFunctionBuilder().WithFunc(func() { panic(errDeep) }).Export(testInterrupts.StackExhausted).
		Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName("guest"))
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	return m.ExportedFunction(export).Call(ctx, args...)
}

var errDeep = errors.New("stack limit")

// Every shape of interrupt.wat computes the same before and after the
// rewrite, and the rewritten code polls.
func TestInstrumentPreservesResults(t *testing.T) {
	orig := assembleWAT(t, "interrupt")
	inst, err := Instrument(orig, testInterrupts)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		export string
		args   []uint64
		polls  bool
	}{
		{"tree", []uint64{15, 0}, true},
		{"hash", []uint64{5000, 1 << 30}, true},
		{"hash", []uint64{5000, 77}, true},
		{"dispatch", []uint64{300, 2}, true},
		{"dispatch", []uint64{301, 0}, true},
		{"multi", []uint64{400, 0}, true},
		{"multiret", []uint64{3, 0}, false},
		{"refs", []uint64{9, 0}, false},
		{"grow", []uint64{1, 0}, false},
		{"grow", []uint64{70000, 0}, false},
	}
	for _, c := range cases {
		want, err := (&poller{}).run(t, orig, c.export, c.args...)
		if err != nil {
			t.Fatalf("original %s%v: %v", c.export, c.args, err)
		}
		p := &poller{}
		got, err := p.run(t, inst, c.export, c.args...)
		if err != nil {
			t.Fatalf("instrumented %s%v: %v", c.export, c.args, err)
		}
		if len(got) != len(want) || got[0] != want[0] {
			t.Errorf("%s%v = %v after the rewrite, %v before", c.export, c.args, got, want)
		}
		if c.polls && p.polls == 0 {
			t.Errorf("%s%v never polled", c.export, c.args)
		}
		if failed := c.export == "grow" && c.args[0] > 1; (p.growFails > 0) != failed {
			t.Errorf("%s%v: the grow hook ran %d times", c.export, c.args, p.growFails)
		}
	}
}

// An endless loop and a loop-free call tree of 2^40 calls both reach the
// poll, which stops them; the original call tree would run for hours and
// the loop forever.
func TestInstrumentStops(t *testing.T) {
	inst, err := Instrument(assembleWAT(t, "interrupt"), testInterrupts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		export string
		args   []uint64
	}{{"spin", []uint64{0, 0}}, {"tree", []uint64{40, 0}}} {
		p := &poller{limit: 1000}
		_, err := p.run(t, inst, c.export, c.args...)
		var exit *sys.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
			t.Errorf("%s: got %v, want the poll's exit error", c.export, err)
		}
	}
}

// The depth count goes up and down with calls: a deep call tree within the
// limit completes (so returns, branches out of functions and tail positions
// all give their frame back), and one past it reaches the stack hook.
func TestInstrumentStackLimit(t *testing.T) {
	inst, err := Instrument(assembleWAT(t, "interrupt"), testInterrupts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&poller{}).run(t, inst, "deep", 300, 0); err != nil {
		t.Fatalf("300 frames deep: %v", err)
	}
	if _, err := (&poller{}).run(t, inst, "deeploop", 300, 0); err != nil {
		t.Fatalf("300 frames deep, 100 times: %v", err) // frames were not given back
	}
	if _, err := (&poller{}).run(t, inst, "deep", 100000, 0); !errors.Is(err, errDeep) {
		t.Fatalf("100000 frames deep: got %v, want the stack hook", err)
	}
}

// Every module the repository builds (plugins and fixtures, from Rust,
// TinyGo, Go, AssemblyScript, C and WAT) is accepted by the rewriter after
// Preflight, and wazero validates the result.
func TestInstrumentRealModules(t *testing.T) {
	for name, wasm := range compiledModules(t) {
		pre, _, err := Preflight(wasm, policy(100_000))
		if err != nil {
			continue // a fixture that Preflight refuses on purpose
		}
		out, err := Instrument(pre, InterruptOptions{Module: "mcpwasm:sandbox", Name: "poll", Fuel: 1 << 20})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ok, _, _, p := wazeroCompiles(out); !ok || p != nil {
			t.Errorf("%s: wazero refuses the rewritten module (%v)", name, p)
		}
	}
}

// BenchmarkInstrument is the rewrite's share of a plugin's load: the 3.4 MB
// standard-Go conformance fixture, rewritten on every start (wazero's cache
// is keyed by the rewritten bytes).
func BenchmarkInstrument(b *testing.B) {
	in, err := os.ReadFile(fixture.Path(b, "conformance"))
	if err != nil {
		b.Fatal(err)
	}
	pre, _, err := Preflight(in, policy(100_000))
	if err != nil {
		b.Fatal(err)
	}
	opts := InterruptOptions{Module: "m", Name: "poll", GrowFailed: "g", StackLimit: 1 << 22, StackExhausted: "s", ClampSleeps: true, Fuel: 1 << 20}
	b.SetBytes(int64(len(pre)))
	for b.Loop() {
		if _, err := Instrument(pre, opts); err != nil {
			b.Fatal(err)
		}
	}
}
