package plugin

import (
	"context"
	"fmt"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero/api"
)

// The guest's calls into the Extism kernel. Extism (go-sdk v1.7.1, host.go
// instantiateEnvModule) serves most extism:host/env imports with a Go
// trampoline that, on every call, looks the kernel's export up again:
// ctx.Value for the kernel instance, then api.Module.ExportedFunction, for
// which wazero builds a new api.Function with its own freshly allocated
// stack (wazevo callEngine.init). A guest that copies its input a byte at
// a time pays that per byte. The import names are fixed by Extism's
// trampoline and the kernel instance is a private field of extism.Plugin,
// so the lookup cannot be cached from outside; instead the module's
// imports of these functions are renamed into kernelNamespace at load, and
// served below by the same trampoline with the kernel's functions looked
// up once per instance (each call has a fresh one) and kept in the call's
// state. The kernel's own code, and what it does, are unchanged.

// kernelNamespace is where the guest's kernel imports are served from.
const kernelNamespace = "mcpwasm:host/kernel"

var (
	i32 = extism.ValueTypeI32
	i64 = extism.ValueTypeI64
)

// kernelTrampolines are the extism:host/env functions Extism serves by
// calling the kernel's export of the same name, with their types
// (load_u64, store_u64 and input_load_u64 Extism serves natively: they stay
// extism's).
var kernelTrampolines = []struct {
	name            string
	params, results []extism.ValueType
}{
	{"alloc", []extism.ValueType{i64}, []extism.ValueType{i64}},
	{"free", []extism.ValueType{i64}, nil},
	{"load_u8", []extism.ValueType{i64}, []extism.ValueType{i32}},
	{"input_load_u8", []extism.ValueType{i64}, []extism.ValueType{i32}},
	{"store_u8", []extism.ValueType{i64, i32}, nil},
	{"input_set", []extism.ValueType{i64, i64}, nil},
	{"output_set", []extism.ValueType{i64, i64}, nil},
	{"input_length", nil, []extism.ValueType{i64}},
	{"input_offset", nil, []extism.ValueType{i64}},
	{"output_length", nil, []extism.ValueType{i64}},
	{"output_offset", nil, []extism.ValueType{i64}},
	{"length", []extism.ValueType{i64}, []extism.ValueType{i64}},
	{"length_unsafe", []extism.ValueType{i64}, []extism.ValueType{i64}},
	{"reset", nil, nil},
	{"error_set", []extism.ValueType{i64}, nil},
	{"error_get", nil, []extism.ValueType{i64}},
	{"memory_bytes", nil, []extism.ValueType{i64}},
}

// kernelFuncs is len(kernelTrampolines), as a constant (init checks it).
const kernelFuncs = 17

func init() {
	if len(kernelTrampolines) != kernelFuncs {
		panic("plugin: kernelFuncs is not len(kernelTrampolines)")
	}
}

// kernelIndex maps a trampolined function's name to its index in
// kernelTrampolines (and in callState.kernel).
var kernelIndex = func() map[string]int {
	m := map[string]int{}
	for i, k := range kernelTrampolines {
		m[k.name] = i
	}
	return m
}()

// kernelFunctions serves kernelNamespace.
func kernelFunctions() []extism.HostFunction {
	fs := make([]extism.HostFunction, 0, len(kernelTrampolines))
	for i, k := range kernelTrampolines {
		trampoline := func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) {
			if err := kernelFunction(ctx, i, k.name).CallWithStack(ctx, stack); err != nil {
				panic(err) // as Extism's trampoline does: the guest traps with the kernel's error
			}
		}
		serve := trampoline
		switch k.name {
		case "input_set", "reset":
			// They move the kernel's input away from where Extism put it:
			// input_load_u8 asks the kernel from then on.
			serve = func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
				if st := callStateFrom(ctx); st != nil {
					st.inputMoved = true
				}
				trampoline(ctx, p, stack)
			}
		case "load_u8", "store_u8", "input_load_u8", "input_length", "input_offset",
			"output_set", "error_set", "output_offset", "output_length", "error_get":
			if !kernelInGo || !kernelMatches {
				break
			}
			native := byteFunctions[k.name]
			if native == nil {
				native = stateFunctions[k.name] // kernelstate.go
			}
			serve = func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
				if !native(ctx, p, stack) {
					trampoline(ctx, p, stack)
				}
			}
		}
		f := extism.NewHostFunctionWithStack(k.name, serve, k.params, k.results)
		f.SetNamespace(kernelNamespace)
		fs = append(fs, f)
	}
	return fs
}

// The kernel's byte functions and where its input is, served in Go: each
// is a memory access behind a bounds check or a value Extism set, yet
// through the kernel it costs a call into a
// second module (and, once per instance, a new wazero function with its own
// 10 KiB stack; RATIONALE.md, "The call path"). Extism itself serves their
// 8-byte forms (load_u64, store_u64, input_load_u64) in Go. These do what
// the kernel's do (its v1.7.0 build, disassembled): an offset below 64 or
// past the end of the kernel's memory reads 0 and writes nothing, one at
// the very end traps, and input_load_u8 reads 0 past the input's length;
// input_length and input_offset are what Extism gave the kernel's
// input_set. TestKernelBytesInGo compares both on the edges. served is
// false when the kernel must answer: the input functions after the guest
// moved its input.

// kernelInGo turns the Go byte functions on (off: a test compares).
var kernelInGo = true

var byteFunctions = map[string]func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) (served bool){
	"load_u8": func(_ context.Context, p *extism.CurrentPlugin, stack []uint64) bool {
		stack[0] = uint64(kernelByte(p, stack[0]))
		return true
	},
	"store_u8": func(_ context.Context, p *extism.CurrentPlugin, stack []uint64) bool {
		mem, off := p.Memory(), stack[0]
		if off < 64 || off > uint64(mem.Size()) {
			return true
		}
		if !mem.WriteByte(uint32(off), byte(stack[1])) {
			panic(fmt.Errorf("store_u8: offset %d is outside the kernel's memory", off))
		}
		return true
	},
	"input_length": func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) bool {
		st := callStateFrom(ctx)
		if st == nil || st.inputMoved {
			return false
		}
		stack[0] = st.inputLen
		return true
	},
	"input_offset": func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) bool {
		start, ok := ctx.Value(extism.InputOffsetKey("inputOffset")).(uint64)
		if st := callStateFrom(ctx); st == nil || st.inputMoved || !ok {
			return false
		}
		stack[0] = start
		return true
	},
	"input_load_u8": func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) bool {
		st := callStateFrom(ctx)
		start, ok := ctx.Value(extism.InputOffsetKey("inputOffset")).(uint64)
		if st == nil || st.inputMoved || !ok {
			return false
		}
		if stack[0] >= st.inputLen {
			stack[0] = 0
			return true
		}
		b, ok := p.Memory().ReadByte(uint32(start + stack[0]))
		if !ok {
			panic(fmt.Errorf("input_load_u8: offset %d is outside the kernel's memory", stack[0]))
		}
		stack[0] = uint64(b)
		return true
	},
}

// kernelByte is load_u8(off).
func kernelByte(p *extism.CurrentPlugin, off uint64) byte {
	mem := p.Memory()
	if off < 64 || off > uint64(mem.Size()) {
		return 0
	}
	b, ok := mem.ReadByte(uint32(off))
	if !ok {
		panic(fmt.Errorf("load_u8: offset %d is outside the kernel's memory", off))
	}
	return b
}

// kernelFunction returns the running instance's kernel export name, from
// the call's state once looked up.
func kernelFunction(ctx context.Context, i int, name string) api.Function {
	st := callStateFrom(ctx)
	if st != nil && st.kernel[i] != nil {
		return st.kernel[i]
	}
	m, ok := ctx.Value(extism.PluginCtxKey("extism")).(api.Module)
	if !ok {
		panic("the Extism kernel is not in the call's context")
	}
	f := m.ExportedFunction(name)
	if f == nil {
		panic(fmt.Errorf("function %q not found in the Extism kernel", name))
	}
	if st != nil {
		st.kernel[i] = f
	}
	return f
}
