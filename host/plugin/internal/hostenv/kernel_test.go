package hostenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// extismKernel is Extism's own Wasm kernel (go-sdk v1.7.1 embeds v1.7.0),
// read from the module cache once, or the test is skipped.
func extismKernel(t testing.TB) []byte {
	t.Helper()
	kernelOnce.Do(func() {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/extism/go-sdk").Output()
		if err != nil {
			kernelErr = fmt.Errorf("go-sdk's module directory: %v", err)
			return
		}
		kernelWasm, kernelErr = os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "extism-runtime.wasm"))
	})
	if kernelErr != nil {
		t.Skipf("Extism's kernel: %v", kernelErr)
	}
	return kernelWasm
}

var (
	kernelOnce sync.Once
	kernelWasm []byte
	kernelErr  error
	// kernelCache holds the kernel's machine code for every test's runtime:
	// compiled once, not interpreted (under -race the interpreter's own Go
	// code is instrumented; TestKernelRandom took over a minute in it).
	kernelCache = wazero.NewCompilationCache()
)

// wasmKernel runs Extism's kernel under wazero.
type wasmKernel struct {
	mod api.Module
	t   testing.TB
}

func newWasmKernel(t testing.TB, pages uint32) *wasmKernel {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(kernelCache).WithMemoryLimitPages(pages))
	t.Cleanup(func() { r.Close(ctx) })
	mod, err := r.InstantiateWithConfig(ctx, extismKernel(t), wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatal(err)
	}
	return &wasmKernel{mod: mod, t: t}
}

// call returns the kernel function's result, or "trap" if it trapped.
func (w *wasmKernel) call(name string, args ...uint64) (uint64, bool) {
	res, err := w.mod.ExportedFunction(name).Call(context.Background(), args...)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "wasm error: ") {
			w.t.Fatalf("%s%v: %v", name, args, err)
		}
		return 0, false
	}
	if len(res) == 0 {
		return 0, true
	}
	return res[0], true
}

func (w *wasmKernel) memory() []byte {
	b, _ := w.mod.Memory().Read(0, w.mod.Memory().Size())
	return b
}

// goCall runs the same function on k, with a trap as false.
func goCall(k *Kernel, name string, args ...uint64) (res uint64, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			var tr *Trap
			if e, isErr := r.(error); !isErr || !errors.As(e, &tr) {
				panic(r)
			}
			res, ok = 0, false
		}
	}()
	switch name {
	case "alloc":
		return k.Alloc(args[0]), true
	case "free":
		k.Free(args[0])
	case "length":
		return k.Length(args[0]), true
	case "length_unsafe":
		return k.LengthUnsafe(args[0]), true
	case "load_u8":
		return uint64(k.LoadU8(args[0])), true
	case "store_u8":
		k.StoreU8(args[0], byte(args[1]))
	case "input_load_u8":
		return uint64(k.InputLoadU8(args[0])), true
	case "input_set":
		k.InputSet(args[0], args[1])
	case "output_set":
		k.OutputSet(args[0], args[1])
	case "input_length":
		return k.InputLength(), true
	case "input_offset":
		return k.InputOffset(), true
	case "output_length":
		return k.OutputLength(), true
	case "output_offset":
		return k.OutputOffset(), true
	case "reset":
		k.Reset()
	case "error_set":
		k.ErrorSet(args[0])
	case "error_get":
		return k.ErrorGet(), true
	case "memory_bytes":
		return k.MemoryBytes(), true
	default:
		panic("no kernel function " + name)
	}
	return 0, true
}

// kernelOp is one call in a sequence.
type kernelOp struct {
	name string
	args []uint64
}

// edgeOps are the edges named in the package doc, run on a fresh kernel
// and after a few allocations.
var edgeOps = []kernelOp{
	{"length", []uint64{0}}, {"free", []uint64{0}}, {"alloc", []uint64{0}},
	{"load_u8", []uint64{0}}, {"load_u8", []uint64{63}}, {"load_u8", []uint64{64}}, {"store_u8", []uint64{63, 7}},
	{"store_u8", []uint64{64, 7}}, {"load_u8", []uint64{64}},
	{"load_u8", []uint64{MinPages * pageSize}}, {"load_u8", []uint64{MinPages*pageSize - 1}}, {"load_u8", []uint64{MinPages*pageSize + 1}},
	{"store_u8", []uint64{MinPages * pageSize, 1}}, {"store_u8", []uint64{1 << 40, 1}},
	{"error_set", []uint64{0}}, {"error_set", []uint64{64}}, {"error_set", []uint64{65}}, {"error_get", nil},
	{"error_set", []uint64{65 + pageSize}}, {"error_get", nil}, {"error_set", []uint64{0}}, {"error_get", nil},
	{"input_set", []uint64{65, 0}}, {"input_set", []uint64{77, 5}}, {"input_length", nil}, {"input_offset", nil},
	{"input_load_u8", []uint64{4}}, {"input_load_u8", []uint64{5}},
	{"output_set", []uint64{64, 1}}, {"output_set", []uint64{77, pageSize}}, {"output_length", nil},
	{"alloc", []uint64{1065}}, {"alloc", []uint64{288}}, {"alloc", []uint64{128}}, {"length", []uint64{1154}},
	{"length", []uint64{1155}}, {"length_unsafe", []uint64{1154}}, {"length_unsafe", []uint64{1155}},
	{"free", []uint64{1454}}, {"length", []uint64{1454}}, {"length_unsafe", []uint64{1454}}, {"alloc", []uint64{4}},
	{"free", []uint64{77}}, {"alloc", []uint64{500}}, {"alloc", []uint64{600}}, {"length", []uint64{77}},
	{"input_set", []uint64{1154, 288}}, {"free", []uint64{1154}}, {"input_length", nil},
	{"alloc", []uint64{3 * pageSize}}, {"memory_bytes", nil}, {"alloc", []uint64{40 * pageSize}}, {"memory_bytes", nil},
	{"store_u8", []uint64{17 * pageSize, 9}}, {"load_u8", []uint64{17 * pageSize}},
	{"length", []uint64{MinPages * pageSize}}, {"length_unsafe", []uint64{MinPages * pageSize}},
	{"reset", nil}, {"input_length", nil}, {"alloc", []uint64{10}}, {"memory_bytes", nil},
}

// TestKernelEdges runs the edges on Extism's kernel and this one: every
// answer, every trap and the whole memory after each call are the same.
func TestKernelEdges(t *testing.T) {
	runBoth(t, edgeOps, 32)
}

func runBoth(t *testing.T, ops []kernelOp, pages uint32) {
	t.Helper()
	w := newWasmKernel(t, pages)
	k := NewKernel(nil, uint64(pages)*pageSize)
	for i, op := range ops {
		want, wantOK := w.call(op.name, op.args...)
		got, gotOK := goCall(k, op.name, op.args...)
		if want != got || wantOK != gotOK {
			t.Fatalf("op %d %s%v: Extism's kernel %d (ok %v), this one %d (ok %v)", i, op.name, op.args, want, wantOK, got, gotOK)
		}
		if wm := w.memory(); !bytes.Equal(wm, k.Bytes()) {
			first := 0
			for first < min(len(wm), len(k.Bytes())) && wm[first] == k.Bytes()[first] {
				first++
			}
			t.Fatalf("op %d %s%v: memories differ (sizes %d and %d), first at byte %d", i, op.name, op.args, len(wm), len(k.Bytes()), first)
		}
	}
}

// TestKernelRandom runs random sequences that allocate, free, split and
// reuse blocks, set ranges and poke bytes, on both kernels.
func TestKernelRandom(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		var handles []uint64
		w := newWasmKernel(t, 24)
		k := NewKernel(nil, 24*pageSize)
		pick := func() uint64 {
			if len(handles) == 0 || rng.IntN(8) == 0 {
				return rng.Uint64N(MinPages*pageSize + 100)
			}
			return handles[rng.IntN(len(handles))] + uint64(rng.IntN(3)) - 1
		}
		for i := range 400 {
			var op kernelOp
			switch r := rng.IntN(20); {
			case r < 6:
				n := rng.Uint64N(600)
				if rng.IntN(30) == 0 {
					n = rng.Uint64N(4 * pageSize)
				}
				op = kernelOp{"alloc", []uint64{n}}
			case r < 9:
				op = kernelOp{"free", []uint64{pick()}}
			case r < 11:
				op = kernelOp{[]string{"length", "length_unsafe"}[rng.IntN(2)], []uint64{pick()}}
			case r < 13:
				op = kernelOp{[]string{"input_set", "output_set"}[rng.IntN(2)], []uint64{pick(), rng.Uint64N(700)}}
			case r < 15:
				op = kernelOp{"error_set", []uint64{pick()}}
			case r < 17:
				op = kernelOp{"input_load_u8", []uint64{rng.Uint64N(800)}}
			case r < 19:
				op = kernelOp{"load_u8", []uint64{pick()}}
			default:
				if rng.IntN(10) == 0 {
					op = kernelOp{"reset", nil}
				} else {
					op = kernelOp{"output_length", nil}
				}
			}
			want, wantOK := w.call(op.name, op.args...)
			got, gotOK := goCall(k, op.name, op.args...)
			if want != got || wantOK != gotOK {
				t.Fatalf("seed %d op %d %s%v: Extism's kernel %d (ok %v), this one %d (ok %v)", seed, i, op.name, op.args, want, wantOK, got, gotOK)
			}
			if op.name == "alloc" && got != 0 {
				handles = append(handles, got)
			}
		}
		if !bytes.Equal(w.memory(), k.Bytes()) {
			t.Fatalf("seed %d: memories differ at the end", seed)
		}
	}
}
