package wasmbin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// fuzzInterrupts are the options the server uses (host/plugin), with the
// sleep clamp, every hook and a stack limit.
var fuzzInterrupts = InterruptOptions{Module: "mcpwasm:sandbox", Name: "poll", GrowFailed: "grow_failed",
	StackLimit: 4 << 20, StackExhausted: "stack_exhausted", ClampSleeps: true, Fuel: 50}

var (
	defaultRTOnce sync.Once
	defaultRT     wazero.Runtime
)

// wazeroValidates compiles wasm with wazero's default runtime (the
// compiler where there is one, as the server uses) and returns its error.
func wazeroValidates(wasm []byte) error {
	defaultRTOnce.Do(func() { defaultRT = wazero.NewRuntime(context.Background()) })
	ctx := context.Background()
	c, err := defaultRT.CompileModule(ctx, wasm)
	if err == nil {
		c.Close(ctx)
	}
	return err
}

// instrumentSeeds are the repository's built modules below 200 KB (fixtures
// and plugins, when built) and testdata/interrupt.wat compiled.
func instrumentSeeds(f *testing.F) [][]byte {
	root := filepath.Join(fixture.Dir(), "..", "..")
	var out [][]byte
	for _, pattern := range []string{"testdata/wasm/*.wasm", "plugins/*/*.wasm", "plugins/builtin/wasm/*.wasm"} {
		files, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, file := range files {
			if st, err := os.Stat(file); err != nil || st.Size() >= 200<<10 {
				continue
			}
			if b, err := os.ReadFile(file); err == nil {
				out = append(out, b)
			}
		}
	}
	if _, err := exec.LookPath("wat2wasm"); err == nil {
		out = append(out, assembleWAT(f, "interrupt"))
	}
	return append(out, generateModule([]byte("seed: a generated module, for its shapes")))
}

// Instrument never panics, and on any module wazero and Preflight accept it
// either refuses with ErrNotInstrumentable or returns a module wazero
// accepts.
func FuzzInstrument(f *testing.F) {
	for _, s := range instrumentSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// On anything at all: no panic (the fuzzer reports one).
		_, _ = Instrument(in, fuzzInterrupts)
		// wazero only sees what Preflight accepts: anything else may be an
		// allocation bomb (sections.go).
		pre, _, err := Preflight(in, Policy{AllowedNamespaces: append(slices.Clone(abiNamespaces), "env")})
		if err != nil || wazeroValidates(in) != nil {
			return
		}
		out, err := Instrument(pre, fuzzInterrupts)
		if err != nil {
			if !errors.Is(err, ErrNotInstrumentable) {
				t.Fatalf("Instrument: %v, not wrapping ErrNotInstrumentable", err)
			}
			return
		}
		if err := wazeroValidates(out); err != nil {
			t.Fatalf("wazero refuses the rewritten module: %v", err)
		}
	})
}

// semOutcome is what one call of an export did.
type semOutcome struct {
	results []uint64
	trap    string // the first line of the error, "" if none
	memory  string // memory size and hash
	globals []uint64
	depth   uint64 // the rewrite's stack depth global, when exported
}

func (o semOutcome) String() string {
	return fmt.Sprintf("results %v trap %q memory %s globals %v", o.results, o.trap, o.memory, o.globals)
}

// semHost is the host side of a run: env.host_add and the interruption
// imports, the poll handing out fuel and stopping after maxPolls.
type semHost struct {
	fuel  int32
	polls int
}

const maxPolls = 1 << 20

func (h *semHost) instantiate(t *testing.T, ctx context.Context, rt wazero.Runtime) {
	if _, err := rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithFunc(func(a, b int32) int32 { return a*3 + b }).Export("host_add").Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.NewHostModuleBuilder(fuzzInterrupts.Module).NewFunctionBuilder().
		WithFunc(func(context.Context, api.Module) int32 {
			h.polls++
			if h.polls > maxPolls {
				panic(sys.NewExitError(sys.ExitCodeDeadlineExceeded))
			}
			return h.fuel
		}).Export(fuzzInterrupts.Name).
		NewFunctionBuilder().WithFunc(func() {}).Export(fuzzInterrupts.GrowFailed).
		NewFunctionBuilder().WithFunc(func() { panic(errDeep) }).Export(fuzzInterrupts.StackExhausted).
		Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
}

// runExports calls every export f<i> of wasm, each in a fresh instance,
// with arguments derived from arg.
func (h *semHost) runExports(t *testing.T, wasm []byte, arg uint32) ([]semOutcome, error) {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(false))
	defer rt.Close(ctx)
	h.instantiate(t, ctx, rt)
	c, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, err
	}
	var out []semOutcome
	for i := 0; ; i++ {
		m, err := rt.InstantiateModule(ctx, c, wazero.NewModuleConfig().WithName(fmt.Sprintf("guest%d", i)))
		if err != nil {
			return nil, fmt.Errorf("instantiate: %w", err)
		}
		fn := m.ExportedFunction(fmt.Sprintf("f%d", i))
		if fn == nil {
			m.Close(ctx)
			return out, nil
		}
		args := make([]uint64, len(fn.Definition().ParamTypes()))
		for k := range args {
			args[k] = uint64(arg*uint32(2*k+1) + uint32(k)*0x9E3779B9)
		}
		var o semOutcome
		o.results, err = fn.Call(ctx, args...)
		if err != nil {
			o.trap, _, _ = strings.Cut(err.Error(), "\n")
		}
		mem := m.Memory()
		contents, _ := mem.Read(0, mem.Size())
		sum := sha256.Sum256(contents)
		o.memory = fmt.Sprintf("%d:%s", mem.Size(), hex.EncodeToString(sum[:8]))
		for g := 0; ; g++ {
			gl := m.ExportedGlobal(fmt.Sprintf("g%d", g))
			if gl == nil {
				break
			}
			o.globals = append(o.globals, gl.Get())
		}
		if gl := m.ExportedGlobal("depth"); gl != nil {
			o.depth = gl.Get()
		}
		out = append(out, o)
		m.Close(ctx)
	}
}

// A generated module (gen_test.go) computes the same before and after the
// rewrite, export by export: results, trap, memory and globals, with the
// poll handing out little fuel so that it runs often.
func FuzzInstrumentSemantics(f *testing.F) {
	f.Add([]byte("a small module"), uint8(7), uint32(3))
	f.Add([]byte{5, 3, 2, 1, 4, 1, 6, 9, 200, 100, 50, 25, 12, 6, 3, 1, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}, uint8(50), uint32(1))
	f.Add(slices.Repeat([]byte{3, 5, 6, 10, 11, 2, 9, 1}, 40), uint8(1), uint32(0xFFFFFFFF))
	f.Add(slices.Repeat([]byte{6, 3, 1, 5, 13, 15, 4, 8, 10, 11}, 60), uint8(7), uint32(17))
	f.Fuzz(func(t *testing.T, in []byte, fuel uint8, arg uint32) {
		wasm := generateModule(in)
		want, err := (&semHost{}).runExports(t, wasm, arg)
		if err != nil {
			t.Fatalf("the generator's module does not run: %v\n%x", err, wasm)
		}
		opts := fuzzInterrupts
		opts.Fuel = int32(fuel%64) + 1
		inst, err := Instrument(wasm, opts)
		if err != nil {
			t.Fatalf("Instrument: %v", err)
		}
		inst = exportGlobal(t, inst, "depth", uint32(1+len(want[0].globals))) // after the fuel
		h := &semHost{fuel: opts.Fuel}
		got, err := h.runExports(t, inst, arg)
		if err != nil {
			t.Fatalf("the rewritten module does not run: %v", err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d exports ran after the rewrite, %d before", len(got), len(want))
		}
		for i := range want {
			if want[i].String() != got[i].String() {
				t.Errorf("f%d: after the rewrite\n%v\nbefore\n%v", i, got[i], want[i])
			}
			if got[i].trap == "" && got[i].depth != 0 {
				t.Errorf("f%d returned with the stack depth at %d, not 0", i, got[i].depth)
			}
		}
	})
}

// exportGlobal adds an export of global idx, named name, to wasm's export
// section.
func exportGlobal(t *testing.T, wasm []byte, name string, idx uint32) []byte {
	secs, err := splitSections(wasm)
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.Clone(wasm[:8])
	for _, s := range secs {
		body := s.body
		if s.id == 7 {
			r := &reader{b: body}
			n, err := r.u32()
			if err != nil {
				t.Fatal(err)
			}
			body = append(appendU64(nil, uint64(n)+1), body[r.off:]...)
			body = append(append(body, str(name)...), 0x03)
			body = appendU64(body, uint64(idx))
		}
		out = append(out, sec(s.id, body)...)
	}
	return out
}
