package wasmbin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// seg is a data segment for the hand-built modules: its encoding up to its
// length (flags, memory index, offset expression) and its bytes.
type seg struct {
	head []byte
	data string
}

func i32Off(off int32) []byte { return append(append([]byte{0x41}, appendS32(nil, off)...), 0x0B) }

// active is a flags-0 segment at i32.const off.
func active(off int32, data string) seg { return seg{append([]byte{0}, i32Off(off)...), data} }

func dataSec(segs ...seg) []byte {
	parts := [][]byte{leb(uint64(len(segs)))}
	for _, s := range segs {
		parts = append(parts, s.head, str(s.data))
	}
	return sec(secData, parts...)
}

// memSec is a memory section of one memory of min pages, no maximum.
func memSec(min uint64) []byte { return sec(secMemory, leb(1), []byte{0}, leb(min)) }

// decodedSeg is a data segment as decodeData reads it.
type decodedSeg struct {
	flags  uint64
	off    int64 // the i32.const value; -1<<40 for any other expression
	length int
}

// decodeData reads the data section of wasm independently of datasegs.go:
// nil if there is none.
func decodeData(t testing.TB, wasm []byte) []decodedSeg {
	t.Helper()
	for _, s := range rawSections(t, wasm) {
		if s[0] != secData {
			continue
		}
		r := &reader{b: s, off: 1}
		must := func(v uint64, err error) uint64 {
			if err != nil {
				t.Fatalf("data section: %v", err)
			}
			return v
		}
		must(r.uleb(32))
		n := must(r.uleb(32))
		out := []decodedSeg{}
		for range n {
			d := decodedSeg{flags: must(r.uleb(32)), off: -1 << 40}
			if d.flags == 2 {
				must(r.uleb(32))
			}
			if d.flags != 1 {
				start := r.off
				if err := r.constExpr(); err != nil {
					t.Fatal(err)
				}
				if e := r.b[start:r.off]; e[0] == 0x41 && len(e) <= 7 {
					var v int64
					for i, c := range e[1 : len(e)-1] {
						v |= int64(c&0x7f) << (7 * i)
						if c&0x80 == 0 && c&0x40 != 0 {
							v |= -1 << (7 * (i + 1))
						}
					}
					d.off = int64(int32(v))
				}
			}
			d.length = int(must(r.uleb(32)))
			r.off += d.length
			out = append(out, d)
		}
		return out
	}
	return nil
}

// stubRuntime is an interpreter runtime in which every function wasm
// imports is a stub returning zeros, with memory limited to maxPages (0 for
// wazero's default) and start functions interrupted by ctx's deadline.
func stubRuntime(ctx context.Context, wasm []byte, maxPages uint32) (wazero.Runtime, error) {
	cfg := wazero.NewRuntimeConfigInterpreter().WithCloseOnContextDone(true)
	if maxPages > 0 {
		cfg = cfg.WithMemoryLimitPages(maxPages)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	c, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		return rt, err
	}
	byModule := map[string][]api.FunctionDefinition{}
	for _, f := range c.ImportedFunctions() {
		mod, _, _ := f.Import()
		byModule[mod] = append(byModule[mod], f)
	}
	for mod, fns := range byModule {
		b := rt.NewHostModuleBuilder(mod)
		for _, f := range fns {
			_, name, _ := f.Import()
			nres := len(f.ResultTypes())
			b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
				clear(stack[:nres])
			}), f.ParamTypes(), f.ResultTypes()).Export(name)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			return rt, err
		}
	}
	return rt, nil
}

// errInconclusive is instantiation interrupted by its deadline.
var errInconclusive = errors.New("instantiation did not finish in time")

// instantiateMemory compiles and instantiates wasm in a fresh stub runtime
// without running _start or _initialize (only a start section, if any) and
// returns a copy of its memory (nil if it has none), or the error.
func instantiateMemory(wasm []byte, maxPages uint32) (mem []byte, err error) {
	// Only instantiation has a deadline (a fuzzed start section may loop):
	// compiling a 3.5 MB module twice under -race on a busy machine takes
	// seconds, and must not make the result inconclusive.
	rt, err := stubRuntime(context.Background(), wasm, maxPages)
	defer rt.Close(context.Background())
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	c, err := rt.CompileModule(context.Background(), wasm)
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second+time.Duration(len(wasm))*time.Microsecond)
	defer cancel()
	m, err := rt.InstantiateModule(ctx, c, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if ctx.Err() != nil {
		return nil, errInconclusive
	}
	if err != nil {
		return nil, fmt.Errorf("instantiate: %w", err)
	}
	if m.Memory() == nil {
		return nil, nil
	}
	b, _ := m.Memory().Read(0, m.Memory().Size())
	return bytes.Clone(b), nil
}

// sameInstantiation checks that orig and patched fail to instantiate
// together, or give the same memory. It reports whether they failed, and
// errInconclusive if either run was interrupted.
func sameInstantiation(orig, patched []byte, maxPages uint32) (failed bool, err error) {
	a, errA := instantiateMemory(orig, maxPages)
	b, errB := instantiateMemory(patched, maxPages)
	switch {
	case errors.Is(errA, errInconclusive) || errors.Is(errB, errInconclusive):
		return false, errInconclusive
	case (errA == nil) != (errB == nil):
		return false, fmt.Errorf("original: %v; patched: %v", errA, errB)
	case errA != nil:
		return true, nil
	case !bytes.Equal(a, b):
		i := 0
		for i < min(len(a), len(b)) && a[i] == b[i] {
			i++
		}
		return false, fmt.Errorf("memories differ: %d and %d bytes, first difference at %d", len(a), len(b), i)
	}
	return false, nil
}

func TestSleb32(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, 64, -64, -65, 8191, 8192, -8192, -8193, 1 << 20, -1 << 20,
		1<<27 - 1, 1 << 27, -1 << 27, -1<<27 - 1, math.MaxInt32, math.MinInt32} {
		enc := appendS32(nil, v)
		// Minimal: k bytes hold -2^(7k-1) <= v < 2^(7k-1).
		k := 1
		for int64(v) < -1<<(7*k-1) || int64(v) >= 1<<(7*k-1) {
			k++
		}
		if len(enc) != k {
			t.Fatalf("appendS32(%d) = % x, want %d bytes", v, enc, k)
		}
		r := &reader{b: enc}
		if got, ok := r.sleb32(); !ok || got != v || r.left() != 0 {
			t.Fatalf("sleb32(% x) = %d, %v", enc, got, ok)
		}
	}
	for v, want := range map[int32][]byte{
		63: {0x3f}, 64: {0xc0, 0x00}, -64: {0x40}, -65: {0xbf, 0x7f}, 624485: {0xe5, 0x8e, 0x26}, -123456: {0xc0, 0xbb, 0x78},
		math.MaxInt32: {0xff, 0xff, 0xff, 0xff, 0x07}, math.MinInt32: {0x80, 0x80, 0x80, 0x80, 0x78},
	} {
		if enc := appendS32(nil, v); !bytes.Equal(enc, want) {
			t.Errorf("appendS32(%d) = % x, want % x", v, enc, want)
		}
	}
	for _, c := range []struct {
		enc  []byte
		want int32
		ok   bool
	}{
		{[]byte{0x85, 0x00}, 5, true},                    // not minimal: allowed
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x7f}, -1, true}, // five bytes, sign bits all set
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x07}, math.MaxInt32, true},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x78}, math.MinInt32, true},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x40}, 0, false},       // sign bits disagree (wazero accepts this)
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 0, false},       // overflows
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 0, false}, // six bytes
		{[]byte{0x80}, 0, false},                               // truncated
	} {
		r := &reader{b: c.enc}
		if got, ok := r.sleb32(); ok != c.ok || (ok && got != c.want) {
			t.Errorf("sleb32(% x) = %d, %v; want %d, %v", c.enc, got, ok, c.want, c.ok)
		}
	}
}

// datamerge.wasm: seven segments become three, the table gets its maximum,
// and every other section is unchanged.
func TestDataMergeFixture(t *testing.T) {
	in := readTestdata(t, "datamerge.wasm")
	out, m, err := Preflight(in, policy(1000))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tables) != 1 || m.Tables[0].Max != 1000 {
		t.Fatalf("tables %+v, want a maximum of 1000", m.Tables)
	}
	want := []decodedSeg{
		{0, 16, 8223 - 16},        // first, second, third and the empty one
		{0, 12319, 12328 - 12319}, // fourth and its neighbour
		{0, 131070, 2},
	}
	if got := decodeData(t, out); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
	a, b := rawSections(t, in), rawSections(t, out)
	if len(a) != len(b) {
		t.Fatalf("%d sections became %d", len(a), len(b))
	}
	for i := range a {
		if changed := !bytes.Equal(a[i], b[i]); changed != (a[i][0] == secTable || a[i][0] == secData) {
			t.Errorf("section id %d: changed %v", a[i][0], changed)
		}
	}
	if failed, err := sameInstantiation(in, out, 0); err != nil || failed {
		t.Fatalf("failed %v, %v", failed, err)
	}
	again, _, err := Preflight(out, policy(1000))
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("Preflight of its own output: %v, changed %v", err, !bytes.Equal(again, out))
	}
}

// dataMergeCases are hand-built modules: merged says whether Preflight
// should merge their data segments.
var dataMergeCases = []struct {
	name   string
	merged bool
	wasm   []byte
}{
	{"control", true, module(memSec(1), dataSec(active(8, "ab"), active(0, "xy"), active(12, "c")))},
	{"data count section, no code", true, module(memSec(1), sec(secDataCount, leb(2)), dataSec(active(0, "a"), active(2, "b")))},
	{"data count section, code naming no segment", true, countedModule(0x41, 0, 0x41, 0, 0x41, 1, 0xFC, 11, 0)},
	{"data count section, data.drop", false, countedModule(0xFC, 9, 1)},
	{"data count section, memory.init", false, countedModule(0x41, 0, 0x41, 0, 0x41, 1, 0xFC, 8, 0, 0)},
	{"data count section, data.drop with a two-byte opcode", false, countedModule(0xFC, 0x89, 0x00, 0)},
	{"data count section, code the decoder refuses", false, countedModule(0xFC, 0x7F)},
	{"global.get offset", false, module(
		sec(secImport, leb(1), str("extism:host/env"), str("g"), []byte{3, 0x7F, 0}), memSec(1),
		dataSec(active(0, "a"), seg{[]byte{0, 0x23, 0, 0x0B}, "b"}))},
	{"extended-const offset", false, module(memSec(1),
		dataSec(active(0, "a"), seg{[]byte{0, 0x41, 4, 0x41, 4, 0x6A, 0x0B}, "b"}))},
	{"overlap", false, module(memSec(1), dataSec(active(0, "abc"), active(2, "x")))},
	{"same offset", false, module(memSec(1), dataSec(active(5, "a"), active(5, "b")))},
	{"empty segment inside another", false, module(memSec(1), dataSec(active(0, "abc"), active(1, "")))},
	{"memory64, i64 offsets", false, module(sec(secMemory, leb(1), []byte{0x04, 1}),
		dataSec(seg{[]byte{0, 0x42, 0, 0x0B}, "a"}, seg{[]byte{0, 0x42, 2, 0x0B}, "b"}))},
	{"memory64, i32 offsets", false, module(sec(secMemory, leb(1), []byte{0x04, 1}),
		dataSec(active(0, "a"), active(2, "b")))},
	{"passive segment", false, module(memSec(1), dataSec(active(0, "a"), seg{[]byte{1}, "p"}, active(2, "c")))},
	{"memory index 1", false, module(memSec(1), dataSec(active(0, "a"), seg{append([]byte{2, 1}, i32Off(2)...), "b"}))},
	{"two memories", false, module(sec(secMemory, leb(2), []byte{0, 1, 0, 1}), dataSec(active(0, "a"), active(2, "b")))},
	{"no memory", false, module(dataSec(active(0, "a"), active(2, "b")))},
	{"offset LEB128 wazero accepts but the spec does not", false, module(memSec(1),
		dataSec(active(0, "a"), seg{[]byte{0, 0x41, 0x82, 0x80, 0x80, 0x80, 0x40, 0x0B}, "b"}))},
	{"one segment", false, module(memSec(1), dataSec(active(0, "a")))},
	{"gap of 4096", false, module(memSec(1), dataSec(active(0, "a"), active(4097, "b")))},
	{"gap of 4095", true, module(memSec(1), dataSec(active(0, "a"), active(4096, "b")))},
	{"zero fill beyond the section's size", false, func() []byte {
		var segs []seg
		for i := range int32(minFillBudget/4000 + 2) {
			segs = append(segs, active(i*4001, "x"))
		}
		return module(memSec(1), dataSec(segs...))
	}()},
	{"explicit memory index 0", true, module(memSec(1),
		dataSec(seg{append([]byte{2, 0}, i32Off(0)...), "a"}, active(2, "b")))},
	{"non-minimal LEB128s", true, module(memSec(1),
		dataSec(seg{[]byte{0x80, 0x00, 0x41, 0x82, 0x80, 0x00, 0x0B}, "b"}, active(0, "a")))},
	{"only empty segments", true, module(memSec(1), dataSec(active(9, ""), active(3, "")))},
	{"out of bounds, merged into an in-bounds one", true, module(memSec(1),
		dataSec(active(0, "a"), active(65500, "bc"), active(65535, "de")))},
	{"empty segment out of bounds", true, module(memSec(1), dataSec(active(65534, "ab"), active(65537, "")))},
	{"negative offsets", true, module(memSec(1), dataSec(active(-16, "ab"), active(-13, "cd")))},
	{"exactly to the end of memory", true, module(memSec(1), dataSec(active(65000, "ab"), active(65534, "cd")))},
	{"shared memory", true, module(sec(secMemory, leb(1), []byte{0x03, 1, 1}), dataSec(active(4, "ab"), active(0, "cd")))},
}

// countedModule is a module with a data count section, two segments 2
// bytes apart, and one function () -> () whose body is code (its end
// appended).
func countedModule(code ...byte) []byte {
	body := append(append([]byte{0}, code...), 0x0B)
	return module(sec(secType, leb(1), []byte{0x60, 0, 0}), sec(secFunction, leb(1), leb(0)), memSec(1),
		sec(secDataCount, leb(2)), sec(secCode, leb(1), leb(uint64(len(body))), body),
		dataSec(active(0, "a"), active(2, "b")))
}

func TestDataMergeConditions(t *testing.T) {
	for _, c := range dataMergeCases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := Preflight(c.wasm, policy(1000))
			if err != nil {
				t.Fatal(err)
			}
			before, after := decodeData(t, c.wasm), decodeData(t, out)
			if merged := len(after) < len(before); merged != c.merged {
				t.Fatalf("merged %v, want %v: %v became %v", merged, c.merged, before, after)
			}
			if !c.merged && !bytes.Equal(out, c.wasm) {
				t.Fatal("the module changed")
			}
			if c.merged {
				wantFlags := uint64(0)
				for _, s := range before {
					wantFlags = max(wantFlags, s.flags)
				}
				for _, s := range after {
					if s.flags != wantFlags {
						t.Fatalf("flags %d, want %d: %v", s.flags, wantFlags, after)
					}
				}
			}
			// wazero must agree on the module, and on its instantiation.
			okIn, _, _, _ := wazeroCompiles(c.wasm)
			okOut, _, _, p := wazeroCompiles(out)
			if okIn != okOut || p != nil {
				t.Fatalf("wazero compiles the original: %v, the patched module: %v (%v)", okIn, okOut, p)
			}
			if okIn {
				failed, err := sameInstantiation(c.wasm, out, 0)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%v → %v; instantiation fails: %v", before, after, failed)
			}
		})
	}
}

// Out of bounds: a segment one byte past memory fails instantiation before
// and after the merge; the control, which ends exactly at the end of
// memory, succeeds in both.
func TestDataMergeOutOfBounds(t *testing.T) {
	for name, want := range map[string]bool{
		"dataoob.wasm": true,
		"out of bounds, merged into an in-bounds one": true,
		"empty segment out of bounds":                 true,
		"negative offsets":                            true,
		"exactly to the end of memory":                false,
	} {
		var in []byte
		if strings.HasSuffix(name, ".wasm") {
			in = readTestdata(t, name)
		}
		for _, c := range dataMergeCases {
			if c.name == name {
				in = c.wasm
			}
		}
		out, _, err := Preflight(in, policy(1000))
		if err != nil {
			t.Fatal(err)
		}
		if n, m := len(decodeData(t, in)), len(decodeData(t, out)); m >= n {
			t.Fatalf("%s: %d segments became %d; the test wants a merge", name, n, m)
		}
		failed, err := sameInstantiation(in, out, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if failed != want {
			t.Fatalf("%s: instantiation failed: %v, want %v", name, failed, want)
		}
	}
}

// Real toolchain output: the patched module instantiates to the same
// memory, byte for byte. Standard Go's segments must actually merge.
func TestDataMergeRealModules(t *testing.T) {
	for _, name := range []string{"sdk_go", "sdk_tinygo", "sdk_rust", "sdk_as", "conformance"} {
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(fixture.Path(t, name))
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := Preflight(in, policy(100_000))
			if err != nil {
				t.Fatal(err)
			}
			before, after := decodeData(t, in), decodeData(t, out)
			t.Logf("%d bytes, %d data segments → %d bytes, %d data segments", len(in), len(before), len(out), len(after))
			if (name == "sdk_go" || name == "conformance") && len(after) > 10 {
				t.Errorf("standard Go's %d segments only became %d", len(before), len(after))
			}
			failed, err := sameInstantiation(in, out, 0)
			if err != nil || failed {
				t.Fatalf("failed %v, %v", failed, err)
			}
		})
	}
}
