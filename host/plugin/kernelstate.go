package plugin

import (
	"context"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero/api"
)

// The Extism kernel's state, read and written in Go. The kernel (v1.7.0,
// kernelVersion; disassembled) keeps its state in the first 65 bytes of its
// memory: a byte at 1 saying it set itself up, then 8-byte words: the
// capacity of its heap at 17, the error block at 25, the input's offset
// and length at 33 and 41, the output's at 49 and 57. Its functions that
// only move these words cost a call into a second module, and, once per
// instance, a wazero function lookup (11.5 KB); served here they cost a
// memory access.
//
//   - output_offset, output_length and error_get read their word (a kernel
//     not yet set up has zeros there, which is what it would answer).
//   - output_set and error_set check the range as the kernel does and write
//     the words, or do nothing, as the kernel does with a range outside its
//     heap. A kernel not yet set up answers them itself (it sets itself up
//     first, which changes its capacity).
//   - The direct call sets the input as the kernel's input_set would.
//
// TestKernelStateInGo runs the kernel_state fixture's edges both ways.

// Offsets of the kernel's state words.
const (
	stateReady    = 1  // byte: 1 once the kernel set itself up
	stateCapacity = 17 // the heap's capacity in bytes
	stateError    = 25 // the error block, or 0
	stateInput    = 33 // the input's offset; its length follows
	stateOutput   = 49 // the output's offset; its length follows
	// heapStart is where the kernel's heap begins: ranges below it are
	// refused.
	heapStart = 65
)

// kernelReady reports whether the kernel has set itself up.
func kernelReady(mem api.Memory) bool {
	b, ok := mem.ReadByte(stateReady)
	return ok && b != 0
}

// inKernelHeap reports whether input_set and output_set accept the range
// [off, off+n): both its first and last byte inside the heap (the kernel's
// unsigned arithmetic, so an empty range is refused unless it starts past
// the heap's first byte).
func inKernelHeap(capacity, off, n uint64) bool {
	end := capacity + heapStart
	last := off + n - 1
	return off >= heapStart && off < end && last >= heapStart && last < end
}

// setKernelRange is input_set or output_set (which: stateInput or
// stateOutput) on a kernel that has set itself up; it reports false if the
// kernel has not, having done nothing.
func setKernelRange(mem api.Memory, which uint32, off, n uint64) bool {
	if !kernelReady(mem) {
		return false
	}
	if inKernelHeap(kernelWord(mem, stateCapacity), off, n) {
		mem.WriteUint64Le(which, off)
		mem.WriteUint64Le(which+8, n)
	}
	return true
}

// stateFunctions are the kernel's state functions served in Go, in the
// form of byteFunctions (kernel.go): served is false when the kernel must
// answer.
var stateFunctions = map[string]func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) (served bool){
	"output_set": func(_ context.Context, p *extism.CurrentPlugin, stack []uint64) bool {
		return setKernelRange(p.Memory(), stateOutput, stack[0], stack[1])
	},
	"error_set": func(_ context.Context, p *extism.CurrentPlugin, stack []uint64) bool {
		mem, off := p.Memory(), stack[0]
		if !kernelReady(mem) {
			return false
		}
		if off == 0 || (off >= heapStart && off < kernelWord(mem, stateCapacity)+heapStart) {
			mem.WriteUint64Le(stateError, off)
		}
		return true
	},
	"output_offset": readWord(stateOutput),
	"output_length": readWord(stateOutput + 8),
	"error_get":     readWord(stateError),
}

// readWord serves a function that answers the kernel's state word at off.
func readWord(off uint32) func(context.Context, *extism.CurrentPlugin, []uint64) bool {
	return func(_ context.Context, p *extism.CurrentPlugin, stack []uint64) bool {
		stack[0] = kernelWord(p.Memory(), off)
		return true
	}
}

// kernelWord is the kernel's 8-byte state word at off (0 if unreadable).
func kernelWord(mem api.Memory, off uint32) uint64 {
	v, _ := mem.ReadUint64Le(off)
	return v
}
