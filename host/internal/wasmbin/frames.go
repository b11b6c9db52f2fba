package wasmbin

import "fmt"

// FrameSizes estimates, for each function the module defines (in order,
// imports not included), the bytes a call of it takes on an engine's
// stack: the same estimate Instrument charges against
// InterruptOptions.StackLimit (frameSize: 16 bytes per parameter, local
// and value its operand stack can hold, plus a header). It reads the
// module without changing it, for a host that bounds the stack of the
// original module itself (a wazero function listener). wasm must be a
// module Preflight accepted.
func FrameSizes(wasm []byte) ([]int32, error) {
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, err
	}
	mi, code, err := readModule(secs, InterruptOptions{})
	if err != nil {
		return nil, err
	}
	bodies, err := mi.splitCode(code)
	if err != nil {
		return nil, fmt.Errorf("code section: %w", err)
	}
	sizes := make([]int32, len(bodies))
	var buf []instr
	for i, b := range bodies {
		fb, err := decodeBody(b, buf)
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", mi.impFuncs+uint32(i), err)
		}
		buf = fb.ins
		sizes[i] = frameSize(uint64(mi.typeParams[mi.funcTypes[i]]) + fb.nLocals + uint64(mi.maxHeight(fb)))
	}
	return sizes, nil
}
