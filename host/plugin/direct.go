package plugin

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// A direct call: the call path runs the guest's export itself instead of
// through extism.Plugin.CallWithContext.
//
// CallWithContext looks seven functions up in a fresh instance on every
// call (the kernel's reset, alloc and input_set, the export, then error_get,
// output_offset and output_length), and wazero builds each lookup a call
// engine with its own 10 KiB stack: about 81 KB and 15–20 µs per call, most
// of what a sandboxed echo allocates (RATIONALE.md, "The call path"). A
// direct call looks up two: the kernel's alloc, for the input (shared with
// the guest's own allocations through callState.kernel), and the export.
// The kernel's state it reads and writes in the kernel's memory, as the
// kernel's own functions do (kernelstate.go).
//
// The instance's modules are private fields of extism.Plugin. They are
// found by name and type once, at start (extismFieldsOf); if any is
// missing or has another type, or the kernel is not the version whose
// layout kernelstate.go mirrors, every call takes CallWithContext as
// before, and TestDirectCallsAvailable fails so an upgrade cannot lose the
// direct call unnoticed. What the direct call does is what CallWithContext
// does, in the same order, minus the lookups; TestDirectCallsChangeNothing
// runs every module the repository builds both ways.

// directCalls turns direct calls on (off: a test compares).
var directCalls = true

// kernelVersion is the Extism kernel whose state layout kernelstate.go
// mirrors (extism.RuntimeVersion, disassembled).
const kernelVersion = "v1.7.0"

// extismFields are where an extism.Plugin keeps what a direct call needs.
type extismFields struct {
	kernel, main uintptr // offsets of the kernel and main api.Module
	guestInit    uintptr // offset of the guest runtime's init function
	missing      error   // why there is no direct call, or nil
}

var extismPlugin = extismFieldsOf(reflect.TypeFor[extism.Plugin](), extism.RuntimeVersion())

// kernelMatches says the Extism kernel is the one kernel.go and
// kernelstate.go mirror; with another, every kernel function is the
// kernel's own.
var kernelMatches = kernelMismatch(extism.RuntimeVersion()) == nil

// kernelMismatch says why an Extism kernel of runtimeVersion is not the
// one mirrored, or nil.
func kernelMismatch(runtimeVersion string) error {
	if v := strings.TrimSpace(runtimeVersion); v != kernelVersion { // v1.7.1 reads it from a file, newline and all
		return fmt.Errorf("the Extism kernel is %q, not %s", v, kernelVersion)
	}
	return nil
}

// extismFieldsOf finds the fields in t, a struct type that should be
// extism.Plugin v1.7.1's.
func extismFieldsOf(t reflect.Type, runtimeVersion string) extismFields {
	if err := kernelMismatch(runtimeVersion); err != nil {
		return extismFields{missing: err}
	}
	field := func(in reflect.Type, name string, want reflect.Type) (uintptr, error) {
		f, ok := in.FieldByName(name)
		if !ok || len(f.Index) != 1 {
			return 0, fmt.Errorf("%s has no field %s", in, name)
		}
		if f.Type != want {
			return 0, fmt.Errorf("%s.%s is a %s, not a %s", in, name, f.Type, want)
		}
		return f.Offset, nil
	}
	var fs extismFields
	module := reflect.TypeFor[api.Module]()
	var errs [4]error
	fs.kernel, errs[0] = field(t, "extism", module)
	fs.main, errs[1] = field(t, "mainModule", module)
	gr, ok := t.FieldByName("guestRuntime")
	if !ok || gr.Type.Kind() != reflect.Struct {
		errs[2] = fmt.Errorf("%s has no struct field guestRuntime", t)
	} else {
		var init uintptr
		init, errs[3] = field(gr.Type, "init", reflect.TypeFor[func(context.Context) error]())
		fs.guestInit = gr.Offset + init
	}
	fs.missing = errors.Join(errs[:]...)
	return fs
}

// directInstance is what a direct call reads from an instance.
type directInstance struct {
	kernel, main api.Module
	guestInit    func(context.Context) error
}

// direct returns inst's modules, or false when calls must take
// CallWithContext.
func direct(inst *extism.Plugin) (directInstance, bool) {
	if !directCalls || extismPlugin.missing != nil {
		return directInstance{}, false
	}
	base := unsafe.Pointer(inst)
	d := directInstance{
		kernel:    *(*api.Module)(unsafe.Add(base, extismPlugin.kernel)),
		main:      *(*api.Module)(unsafe.Add(base, extismPlugin.main)),
		guestInit: *(*func(context.Context) error)(unsafe.Add(base, extismPlugin.guestInit)),
	}
	return d, d.kernel != nil && d.main != nil
}

// callInstance calls export in inst, a fresh instance (the guest runtime's
// init runs every time), with input: directly
// when it can, else through CallWithContext. It answers as CallWithContext
// does: the export's result (or exit code), the guest's output, and an
// error for a trap, an exit other than 0, or a message the guest set.
func callInstance(ctx context.Context, inst *extism.Plugin, export string, input []byte) (uint32, []byte, error) {
	d, ok := direct(inst)
	if !ok {
		return inst.CallWithContext(ctx, export, input)
	}
	if d.main.IsClosed() {
		return 0, nil, errors.New("module is closed")
	}
	ctx = context.WithValue(ctx, extism.PluginCtxKey("extism"), d.kernel)
	ctx = context.WithValue(ctx, extism.PluginCtxKey("plugin"), inst)
	// The input: a block from the kernel's allocator holding it, made the
	// kernel's input as its input_set would (Extism first resets the
	// kernel: a fresh instance's is reset).
	mem := d.kernel.Memory()
	res, err := kernelFunction(ctx, kernelIndex["alloc"], "alloc").Call(ctx, uint64(len(input)))
	if err != nil {
		return 1, nil, err
	}
	ptr := res[0]
	if ptr == 0 && len(input) > 0 {
		// Extism would write the input over the kernel's state and run
		// the guest; MaxInput keeps inputs within what the kernel can hold.
		return 1, nil, errors.New("the Extism kernel could not allocate a block for the input")
	}
	mem.Write(uint32(ptr), input)
	if kernelInGo {
		setKernelRange(mem, stateInput, ptr, uint64(len(input)))
	} else if _, err := kernelFunction(ctx, kernelIndex["input_set"], "input_set").Call(ctx, ptr, uint64(len(input))); err != nil {
		return 1, nil, err
	}
	ctx = context.WithValue(ctx, extism.InputOffsetKey("inputOffset"), ptr)

	f := d.main.ExportedFunction(export)
	if f == nil {
		return 1, nil, fmt.Errorf("unknown function: %s", export)
	}
	if n := len(f.Definition().ResultTypes()); n > 1 {
		return 1, nil, fmt.Errorf("function %s has %v results, expected 0 or 1", export, n)
	}
	if d.guestInit != nil && export != "_start" && export != "_initialize" {
		if err := d.guestInit(ctx); err != nil {
			return 1, nil, fmt.Errorf("failed to initialize runtime: %v", err)
		}
	}
	res, err = f.Call(ctx)
	if exit, ok := err.(*sys.ExitError); ok { // only an unwrapped exit, as Extism
		if exit.ExitCode() == 0 {
			err = nil
		}
		if len(res) == 0 {
			res = []uint64{api.EncodeU32(exit.ExitCode())}
		}
	}
	var rc uint32
	switch {
	case len(res) > 0:
		rc = api.DecodeU32(res[0])
	case err != nil:
		rc = 1
	}
	if err != nil {
		return rc, nil, err
	}
	var guestErr error
	if msg := kernelErrorMessage(ctx, mem); msg != "" {
		guestErr = errors.New(msg)
	}
	return rc, kernelOutput(mem), guestErr
}

// instanceError is the message the guest set with error_set, or "".
func instanceError(ctx context.Context, inst *extism.Plugin) string {
	d, ok := direct(inst)
	if !ok {
		return inst.GetError()
	}
	ctx = context.WithValue(context.WithoutCancel(ctx), extism.PluginCtxKey("extism"), d.kernel)
	return kernelErrorMessage(ctx, d.kernel.Memory())
}

// kernelErrorMessage reads the error the guest set, as Extism's GetError
// does: the kernel's error block, its length from the kernel's length.
func kernelErrorMessage(ctx context.Context, mem api.Memory) string {
	off := kernelWord(mem, stateError)
	if off == 0 {
		return ""
	}
	n, err := kernelFunction(ctx, kernelIndex["length"], "length").Call(ctx, off)
	if err != nil {
		return ""
	}
	b, _ := mem.Read(uint32(off), uint32(n[0]))
	return string(b)
}

// kernelOutput copies the guest's output out of the kernel's memory, as
// Extism's GetOutput does (nothing, if the range is outside it).
func kernelOutput(mem api.Memory) []byte {
	off, n := kernelWord(mem, stateOutput), kernelWord(mem, stateOutput+8)
	b, ok := mem.Read(uint32(off), uint32(n))
	if !ok || uint64(uint32(off)) != off || uint64(uint32(n)) != n {
		return []byte{}
	}
	out := make([]byte, len(b))
	copy(out, b)
	return out
}
