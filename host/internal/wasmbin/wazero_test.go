package wasmbin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// newRuntime is a wazero runtime with WASI and a stub of the one Extism
// kernel function plugin.wasm imports.
func newRuntime(t *testing.T) (context.Context, wazero.Runtime) {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	if _, err := rt.NewHostModuleBuilder("extism:host/env").
		NewFunctionBuilder().WithFunc(func() int64 { return 0 }).Export("input_length").
		Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	return ctx, rt
}

func instantiate(t *testing.T, ctx context.Context, rt wazero.Runtime, wasm []byte) api.Module {
	t.Helper()
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	m, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	t.Cleanup(func() { m.Close(ctx) })
	return m
}

func call(t *testing.T, ctx context.Context, m api.Module, name string, args ...uint64) int32 {
	t.Helper()
	res, err := m.ExportedFunction(name).Call(ctx, args...)
	if err != nil {
		t.Fatalf("%s%v: %v", name, args, err)
	}
	return int32(res[0])
}

// The unpatched plugin grows its table without bound; the patched one
// compiles, instantiates, still dispatches through its element segment, and
// table.grow past the cap returns -1 without growing.
func TestWazeroTableGrowCapped(t *testing.T) {
	const limit = 1000
	in := readTestdata(t, "plugin.wasm")
	ctx, rt := newRuntime(t)

	orig := instantiate(t, ctx, rt, in)
	if got := call(t, ctx, orig, "grow", 5000); got != 2 {
		t.Fatalf("unpatched grow(5000) = %d, want 2 (the test module must start unbounded)", got)
	}

	out, _, err := Preflight(in, policy(limit))
	if err != nil {
		t.Fatal(err)
	}
	m := instantiate(t, ctx, rt, out)
	for i, want := range []int32{0, 1} {
		if got := call(t, ctx, m, "dispatch", uint64(i)); got != want {
			t.Fatalf("dispatch(%d) = %d, want %d", i, got, want)
		}
	}
	steps := []struct {
		delta      uint64
		want, size int32
	}{
		{limit - 1, -1, 2},    // one past the cap
		{0xffffffff, -1, 2},   // absurd
		{limit - 2, 2, limit}, // exactly to the cap
		{1, -1, limit},
		{0, limit, limit},
	}
	for _, s := range steps {
		if got := call(t, ctx, m, "grow", s.delta); got != s.want {
			t.Fatalf("grow(%d) = %d, want %d", s.delta, got, s.want)
		}
		if got := call(t, ctx, m, "size"); got != s.size {
			t.Fatalf("after grow(%d): size %d, want %d", s.delta, got, s.size)
		}
	}
}

func TestWazeroTablesCapped(t *testing.T) {
	const limit = 1000
	out, _, err := Preflight(readTestdata(t, "tables.wasm"), policy(limit))
	if err != nil {
		t.Fatal(err)
	}
	ctx, rt := newRuntime(t)
	m := instantiate(t, ctx, rt, out)
	for _, c := range []struct {
		fn    string
		delta uint64
		want  int32
	}{
		{"grow_open", limit, -1},
		{"grow_open", limit - 1, 1},
		{"grow_huge", limit + 1, -1},
		{"grow_huge", limit, 0},
		{"grow_huge", 1, -1},
		{"grow_small", 5, -1}, // its own maximum of 5 is kept
		{"grow_small", 4, 1},
	} {
		if got := call(t, ctx, m, c.fn, c.delta); got != c.want {
			t.Errorf("%s(%d) = %d, want %d", c.fn, c.delta, got, c.want)
		}
	}
}

// A table without a maximum from a real toolchain: Go's wasip1 reactor.
func TestGoToolchainModule(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	src := "package main\n\n//go:wasmexport f\nfunc f() int32 { return 42 }\n\nfunc main() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module reactor\n\ngo 1.24\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "reactor.wasm")
	cmd := exec.Command(goBin, "build", "-buildmode=c-shared", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOWORK=off", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}

	before, err := Inspect(wasm)
	if err != nil {
		t.Fatal(err)
	}
	unbounded := 0
	for _, tb := range before.Tables {
		if !tb.HasMax {
			unbounded++
		}
	}
	if unbounded == 0 {
		t.Fatalf("expected the Go toolchain to emit a table without a maximum; tables: %+v", before.Tables)
	}
	const limit = 100_000
	patched, m, err := Preflight(wasm, policy(limit))
	if err != nil {
		t.Fatal(err)
	}
	for i, tb := range m.Tables {
		if !tb.HasMax || tb.Max != limit || tb.Min != before.Tables[i].Min {
			t.Fatalf("table %d: before %+v, after %+v", i, before.Tables[i], tb)
		}
	}
	var funcs []string
	for _, e := range m.Exports {
		if e.Kind == KindFunc {
			funcs = append(funcs, e.Name)
		}
	}
	t.Logf("%d bytes, tables %+v → %+v, imports %d, func exports %v, custom sections %q",
		len(wasm), before.Tables, m.Tables, len(m.Imports), funcs, m.CustomSections)

	ctx, rt := newRuntime(t)
	compiled, err := rt.CompileModule(ctx, patched)
	if err != nil {
		t.Fatalf("compile patched: %v", err)
	}
	mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		t.Fatalf("instantiate patched: %v", err)
	}
	defer mod.Close(ctx)
	if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
		t.Fatalf("_initialize: %v", err)
	}
	if got := call(t, ctx, mod, "f"); got != 42 {
		t.Fatalf("f() = %d, want 42", got)
	}
}
