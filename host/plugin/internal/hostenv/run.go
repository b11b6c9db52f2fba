package hostenv

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// Init is how a guest's language runtime is set up before its first
// export runs, found once per compiled module (DetectInit), as Extism
// finds it per instance (go-sdk runtime.go):
//
//   - a Haskell module (exports hs_init): _initialize if exported (its
//     failure ignored), then hs_init(0, 0);
//   - with WASI, a reactor: _initialize() if exported with no parameters;
//     else a command's __wasm_call_ctors() if so exported;
//   - else nothing.
type Init struct {
	haskell  bool
	reactor  bool   // haskell: call _initialize first
	function string // the init export, or "" for none
}

// DetectInit returns the runtime init of cm; wasi says whether the
// guest gets WASI (Extism runs WASI inits only then).
func DetectInit(cm wazero.CompiledModule, wasi bool) Init {
	exports := cm.ExportedFunctions()
	noParams := func(name string) bool {
		f, ok := exports[name]
		return ok && len(f.ParamTypes()) == 0
	}
	if _, ok := exports["hs_init"]; ok {
		_, reactor := exports["_initialize"]
		return Init{haskell: true, reactor: reactor, function: "hs_init"}
	}
	if !wasi {
		return Init{}
	}
	if noParams("_initialize") {
		return Init{function: "_initialize"}
	}
	if noParams("__wasm_call_ctors") {
		return Init{function: "__wasm_call_ctors"}
	}
	return Init{}
}

// run runs the init in mod.
func (i Init) run(ctx context.Context, mod api.Module) error {
	if i.function == "" {
		return nil
	}
	if i.haskell {
		if i.reactor {
			mod.ExportedFunction("_initialize").Call(ctx) //nolint:errcheck // Extism only logs it
		}
		_, err := mod.ExportedFunction(i.function).Call(ctx, 0, 0)
		return err
	}
	_, err := mod.ExportedFunction(i.function).Call(ctx)
	return err
}

// Run calls export in the instance with input and answers as go-sdk's
// Plugin.CallWithContext does: the export's result (or the exit code of
// a proc_exit), the output, and an error for a trap, an exit other than
// 0, or a message the guest set with error_set. The kernel is reset and
// given the input first; the runtime init runs before the instance's
// first export. ctx must carry in (With).
func (in *Instance) Run(ctx context.Context, export string, input []byte) (uint32, []byte, error) {
	if in.Module.IsClosed() {
		return 0, nil, errors.New("module is closed")
	}
	k := in.Kernel
	k.Reset()
	h, ok := k.Write(input)
	if !ok {
		return 1, []byte{}, fmt.Errorf("the kernel could not allocate %d bytes for the input", len(input))
	}
	k.InputSet(h, uint64(len(input)))
	in.inputOffset = h

	f := in.Module.ExportedFunction(export)
	if f == nil {
		return 1, []byte{}, fmt.Errorf("unknown function: %s", export)
	}
	if n := len(f.Definition().ResultTypes()); n > 1 {
		return 1, []byte{}, fmt.Errorf("function %s has %v results, expected 0 or 1", export, n)
	}
	if !in.initialized && export != "_start" && export != "_initialize" {
		if err := in.init.run(ctx, in.Module); err != nil {
			return 1, []byte{}, fmt.Errorf("failed to initialize runtime: %v", err)
		}
		in.initialized = true
	}
	res, err := f.Call(ctx)
	if exit, ok := err.(*sys.ExitError); ok { // only an unwrapped exit, as go-sdk
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
		return rc, []byte{}, err
	}
	var guestErr error
	if msg := k.ErrorMessage(); msg != "" {
		guestErr = errors.New(msg)
	}
	return rc, k.Output(), guestErr
}
