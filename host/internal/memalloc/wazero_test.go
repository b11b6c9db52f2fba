package memalloc

import (
	"bytes"
	"context"
	_ "embed"
	"runtime"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

//go:embed testdata/grow.wasm
var growWasm []byte

//go:embed testdata/echo.wasm
var echoWasm []byte

//go:embed testdata/trapstart.wasm
var trapStartWasm []byte

func call1(t *testing.T, ctx context.Context, m api.Module, name string, args ...uint64) int32 {
	t.Helper()
	res, err := m.ExportedFunction(name).Call(ctx, args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res) == 0 {
		return 0
	}
	return int32(res[0])
}

// Through wazero: memory.grow returns -1 at the budget, succeeds again once
// another instance closes, and a reused memory reads as zeros from inside
// the guest.
func TestWazeroGrowHitsBudget(t *testing.T) {
	a := New(Options{Budget: 4 * page, MaxPooled: 4})
	ctx := experimental.WithMemoryAllocator(context.Background(), a)
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithMemoryLimitPages(64))
	defer rt.Close(ctx)
	compiled, err := rt.CompileModule(ctx, growWasm)
	if err != nil {
		t.Fatal(err)
	}
	inst := func() api.Module {
		m, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}

	m1 := inst()
	if got := call1(t, ctx, m1, "grow", 2); got != 1 {
		t.Fatalf("grow(2) within budget = %d, want 1", got)
	}
	if got := call1(t, ctx, m1, "grow", 2); got != -1 {
		t.Fatalf("grow(2) past budget = %d, want -1", got)
	}
	if got := call1(t, ctx, m1, "size"); got != 3 {
		t.Fatalf("size after refused grow = %d, want 3", got)
	}
	call1(t, ctx, m1, "fill", 0xff)

	m2 := inst() // 1 page: the budget is now full
	if got := call1(t, ctx, m2, "grow", 1); got != -1 {
		t.Fatalf("grow(1) with a full budget = %d, want -1", got)
	}
	call1(t, ctx, m2, "fill", 0xff)
	if s := a.Stats(); s.Live != 2 || s.Committed != 4*page || s.Refused != 2 {
		t.Fatalf("stats: %+v", s)
	}
	if err := m1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := call1(t, ctx, m2, "grow", 3); got != 1 {
		t.Fatalf("grow(3) after the other instance closed = %d, want 1", got)
	}
	call1(t, ctx, m2, "fill", 0xff)
	m2.Close(ctx)

	// Both reservations (written with 0xff) are pooled; the next instance
	// gets one and must see nothing of it.
	pooled := a.Stats().Pooled
	m3 := inst()
	if runtime.GOOS == "linux" && a.Stats().Pooled != pooled-1 {
		t.Fatalf("no pooled reservation reused: %+v", a.Stats())
	}
	call1(t, ctx, m3, "grow", 3)
	if n := call1(t, ctx, m3, "nonzero"); n != 0 {
		t.Fatalf("reused memory has %d non-zero words", n)
	}
	m3.Close(ctx)
	if s := a.Stats(); s.Live != 0 || s.Committed != 0 {
		t.Fatalf("after close: %+v", s)
	}
}

// wazero never frees the memory of a module whose start function traps;
// the GC cleanup gives the budget and the reservation back.
func TestWazeroFailedInstantiationIsReclaimed(t *testing.T) {
	a := New(Options{MaxPooled: 4})
	ctx := experimental.WithMemoryAllocator(context.Background(), a)
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	for range 3 {
		if _, err := rt.Instantiate(ctx, trapStartWasm); err == nil {
			t.Fatal("start function did not trap")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for s := a.Stats(); s.Live != 0 || s.Reserved != 0; s = a.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("failed instantiations leaked: %+v", s)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

func newEcho(tb testing.TB, maxPages uint32) *extism.CompiledPlugin {
	tb.Helper()
	ctx := context.Background()
	cp, err := extism.NewCompiledPlugin(ctx, extism.Manifest{
		Wasm:   []extism.Wasm{extism.WasmData{Data: echoWasm, Name: "main"}},
		Memory: &extism.ManifestMemory{MaxPages: maxPages},
	}, extism.PluginConfig{RuntimeConfig: wazero.NewRuntimeConfig().WithCloseOnContextDone(true)}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cp.Close(ctx) })
	return cp
}

// Through Extism: an instance takes two memories (kernel and guest), a call
// works, Close gives both back, the next instance reuses them, and the
// budget bounds the kernel's growth.
func TestExtismInstance(t *testing.T) {
	a := New(Options{MaxPooled: 8})
	cp := newEcho(t, 256)
	ctx := experimental.WithMemoryAllocator(context.Background(), a)
	for round := range 3 {
		p, err := cp.Instance(ctx, extism.PluginInstanceConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if s := a.Stats(); s.Live != 2 || s.Committed != 17*page {
			t.Fatalf("round %d: live instance: %+v, want 2 memories of 16+1 pages", round, s)
		}
		if runtime.GOOS == "linux" && round > 0 && a.Stats().Pooled != 0 {
			t.Fatalf("round %d: pooled reservations not reused: %+v", round, a.Stats())
		}
		in := bytes.Repeat([]byte("mcpwasm "), 128*(round+1))
		rc, out, err := p.CallWithContext(context.Background(), "echo", in)
		if err != nil || rc != 0 || !bytes.Equal(out, in) {
			t.Fatalf("round %d: echo rc=%d err=%v out %d bytes, want %d", round, rc, err, len(out), len(in))
		}
		p.Close(context.Background())
		if s := a.Stats(); s.Live != 0 || s.Committed != 0 {
			t.Fatalf("round %d: after Close: %+v", round, s)
		}
	}

	// A budget of 18 pages leaves the 16-page kernel one page to grow: a
	// 256 KiB input does not fit, and Extism reports an empty output.
	b := New(Options{Budget: 18 * page, MaxPooled: 8})
	ctx = experimental.WithMemoryAllocator(context.Background(), b)
	p, err := cp.Instance(ctx, extism.PluginInstanceConfig{})
	if err != nil {
		t.Fatal(err)
	}
	in := bytes.Repeat([]byte{'x'}, 4*page)
	_, out, _ := p.CallWithContext(context.Background(), "echo", in)
	if len(out) == len(in) || b.Stats().Refused == 0 {
		t.Fatalf("kernel grew past the budget: out %d bytes, %+v", len(out), b.Stats())
	}
	p.Close(context.Background())
	if s := b.Stats(); s.Live != 0 || s.Committed != 0 {
		t.Fatalf("after Close: %+v", s)
	}
}

// benchAllocators runs f with wazero's own heap memories and with an
// Allocator.
func benchAllocators(b *testing.B, f func(b *testing.B, ctx context.Context)) {
	b.Run("heap", func(b *testing.B) { f(b, context.Background()) })
	b.Run("mmap", func(b *testing.B) {
		a := New(Options{MaxPooled: 64})
		f(b, experimental.WithMemoryAllocator(context.Background(), a))
		if s := a.Stats(); s.Live != 0 {
			b.Fatalf("leak: %+v", s)
		}
		a.Trim()
	})
}

// benchInstances times, with each allocator, an instance of the echo
// kernel, call on it (if not nil), and its Close; with no call, Close runs
// with the timer stopped, so that Instance alone is timed.
func benchInstances(b *testing.B, call func(b *testing.B, p *extism.Plugin)) {
	benchAllocators(b, func(b *testing.B, ctx context.Context) {
		cp := newEcho(b, 256)
		b.ReportAllocs()
		for b.Loop() {
			p, err := cp.Instance(ctx, extism.PluginInstanceConfig{})
			if err != nil {
				b.Fatal(err)
			}
			if call == nil {
				b.StopTimer()
			} else {
				call(b, p)
			}
			p.Close(context.Background())
			if call == nil {
				b.StartTimer()
			}
		}
	})
}

// BenchmarkExtismInstance times CompiledPlugin.Instance alone; Close runs
// with the timer stopped.
func BenchmarkExtismInstance(b *testing.B) { benchInstances(b, nil) }

// BenchmarkExtismInstanceCallClose times a whole call: Instance, echo of
// 1 KiB, Close.
func BenchmarkExtismInstanceCallClose(b *testing.B) {
	in := bytes.Repeat([]byte("0123456789abcdef"), 64)
	benchInstances(b, func(b *testing.B, p *extism.Plugin) {
		_, out, err := p.CallWithContext(context.Background(), "echo", in)
		if err != nil || len(out) != len(in) {
			b.Fatalf("echo: %v, %d bytes", err, len(out))
		}
	})
}
