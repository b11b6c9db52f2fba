package main

// The Extism kernel (extism:host/env) and mcpwasm's host functions
// (extism:host/user, ABI.md §6), declared by hand: this fixture uses the
// standard library only. Offsets, lengths and handles are i64; a handle is
// the offset of a block in the kernel's memory.

import "encoding/binary"

//go:wasmimport extism:host/env input_length
func inputLength() uint64

//go:wasmimport extism:host/env input_load_u64
func inputLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env input_load_u8
func inputLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env alloc
func kernelAlloc(n uint64) uint64

//go:wasmimport extism:host/env length
func kernelLength(h uint64) uint64

//go:wasmimport extism:host/env load_u64
func loadU64(offset uint64) uint64

//go:wasmimport extism:host/env load_u8
func loadU8(offset uint64) uint32

//go:wasmimport extism:host/env store_u64
func storeU64(offset, v uint64)

//go:wasmimport extism:host/env store_u8
func storeU8(offset uint64, v uint32)

//go:wasmimport extism:host/env output_set
func outputSet(h, n uint64)

//go:wasmimport extism:host/env error_set
func errorSet(h uint64)

//go:wasmimport extism:host/user notify_progress
func hostNotifyProgress(h uint64)

//go:wasmimport extism:host/user notify_logging_message
func hostNotifyLoggingMessage(h uint64)

//go:wasmimport extism:host/user create_message
func hostCreateMessage(h uint64) uint64

//go:wasmimport extism:host/user create_elicitation
func hostCreateElicitation(h uint64) uint64

// copyOut reads n bytes starting at offset 0 of a source into a new slice,
// eight bytes per call; the tail is read as the last eight bytes, overlapping
// ones already read, so no load ever runs past the end. Sources shorter than
// eight bytes are read byte by byte.
func copyOut(n uint64, u64 func(uint64) uint64, u8 func(uint64) uint32) []byte {
	buf := make([]byte, n)
	if n < 8 {
		for i := uint64(0); i < n; i++ {
			buf[i] = byte(u8(i))
		}
		return buf
	}
	for i := uint64(0); i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], u64(i))
	}
	if n%8 != 0 {
		binary.LittleEndian.PutUint64(buf[n-8:], u64(n-8))
	}
	return buf
}

// readInput returns the export's input.
func readInput() []byte {
	return copyOut(inputLength(), inputLoadU64, inputLoadU8)
}

// readBlock returns the contents of the kernel block h.
func readBlock(h uint64) []byte {
	return copyOut(kernelLength(h),
		func(i uint64) uint64 { return loadU64(h + i) },
		func(i uint64) uint32 { return loadU8(h + i) })
}

// writeBlock copies b into a new kernel block of exactly len(b) bytes (the
// host reads a block's length to know how much to read) and returns its
// handle, or 0 if the kernel could not allocate it.
func writeBlock(b []byte) uint64 {
	n := uint64(len(b))
	h := kernelAlloc(n)
	if h == 0 {
		return 0
	}
	if n < 8 {
		for i := uint64(0); i < n; i++ {
			storeU8(h+i, uint32(b[i]))
		}
		return h
	}
	for i := uint64(0); i+8 <= n; i += 8 {
		storeU64(h+i, binary.LittleEndian.Uint64(b[i:]))
	}
	if n%8 != 0 {
		storeU64(h+n-8, binary.LittleEndian.Uint64(b[n-8:]))
	}
	return h
}

// setOutput makes b the export's output and returns the export's status.
func setOutput(b []byte) int32 {
	h := writeBlock(b)
	if h == 0 && len(b) > 0 {
		return fail("conformance: the kernel could not allocate the output")
	}
	outputSet(h, uint64(len(b)))
	return 0
}

// fail sets msg as the export's error and returns a failure status.
func fail(msg string) int32 {
	if h := writeBlock([]byte(msg)); h != 0 {
		errorSet(h)
	}
	return 1
}

// notify sends a notification payload through a () host function.
func notify(fn func(uint64), payload []byte) {
	if h := writeBlock(payload); h != 0 {
		fn(h)
	}
}

// request sends payload through a request host function and returns its
// answer, which is the result or {"error":{"message":...}}.
func request(fn func(uint64) uint64, payload []byte) []byte {
	p := writeBlock(payload)
	if p == 0 {
		return []byte(`{"error":{"message":"the kernel could not allocate the request"}}`)
	}
	h := fn(p)
	if h == 0 {
		return []byte(`{"error":{"message":"the host returned no answer"}}`)
	}
	return readBlock(h)
}
