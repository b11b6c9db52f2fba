//go:build wasip1

package mcpwasm

import (
	"encoding/binary"
	"os"
	"strconv"
)

// The module's exports. Extism calls each as () -> i32 with its input and
// output in the kernel.

//go:wasmexport mcpwasm_abi_version
func exportABIVersion() int32 { return ABIVersion }

//go:wasmexport list_tools
func exportListTools() int32 {
	out, err := listToolsJSON()
	if err != nil {
		return fail(err.Error())
	}
	return output(out)
}

//go:wasmexport call_tool
func exportCallTool() int32 {
	out, err := callTool(readInput())
	if err != nil {
		return fail(err.Error())
	}
	return output(out)
}

// The Extism kernel (extism:host/env). Offsets and lengths are i64; a
// "handle" is the offset of a block in the kernel's own memory.

//go:wasmimport extism:host/env input_length
func kInputLength() uint64

//go:wasmimport extism:host/env input_load_u64
func kInputLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env input_load_u8
func kInputLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env alloc
func kAlloc(n uint64) uint64

//go:wasmimport extism:host/env length
func kLength(h uint64) uint64

//go:wasmimport extism:host/env load_u64
func kLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env load_u8
func kLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env store_u64
func kStoreU64(offset, v uint64)

//go:wasmimport extism:host/env store_u8
func kStoreU8(offset uint64, v uint32)

//go:wasmimport extism:host/env output_set
func kOutputSet(h, n uint64)

//go:wasmimport extism:host/env error_set
func kErrorSet(h uint64)

//go:wasmimport extism:host/env config_get
func kConfigGet(h uint64) uint64

// mcpwasm's host functions (extism:host/user, ABI.md §6). Only those a
// plugin actually calls end up among its imports.

//go:wasmimport extism:host/user notify_progress
func hNotifyProgress(h uint64)

//go:wasmimport extism:host/user notify_logging_message
func hNotifyLoggingMessage(h uint64)

//go:wasmimport extism:host/user create_message
func hCreateMessage(h uint64) uint64

//go:wasmimport extism:host/user create_elicitation
func hCreateElicitation(h uint64) uint64

//go:wasmimport extism:host/user list_roots
func hListRoots() uint64

// readInput copies the call's input out of the kernel, eight bytes per host
// call. input_load_u64 is a native host function, the cheap path; the
// byte-wise kernel calls are used only for inputs shorter than 8 bytes.
func readInput() []byte {
	n := kInputLength()
	buf := make([]byte, n)
	var i uint64
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], kInputLoadU64(i))
	}
	if i < n {
		if n >= 8 { // the last 8 bytes, overlapping ones already read
			binary.LittleEndian.PutUint64(buf[n-8:], kInputLoadU64(n-8))
		} else {
			for ; i < n; i++ {
				buf[i] = byte(kInputLoadU8(i))
			}
		}
	}
	return buf
}

// readBlock copies a kernel block into Go memory.
func readBlock(h uint64) []byte {
	n := kLength(h)
	buf := make([]byte, n)
	var i uint64
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], kLoadU64(h+i))
	}
	if i < n {
		if n >= 8 {
			binary.LittleEndian.PutUint64(buf[n-8:], kLoadU64(h+n-8))
		} else {
			for ; i < n; i++ {
				buf[i] = byte(kLoadU8(h + i))
			}
		}
	}
	return buf
}

// writeBlock copies b into a new kernel block of exactly len(b) bytes (the
// block's length is what the host reads) and returns its handle, or 0 if the
// kernel could not allocate it.
func writeBlock(b []byte) uint64 {
	n := uint64(len(b))
	h := kAlloc(n)
	if h == 0 {
		return 0
	}
	storeWords(h, b)
	if n%8 != 0 {
		if n >= 8 { // the last 8 bytes, overlapping ones already stored
			kStoreU64(h+n-8, binary.LittleEndian.Uint64(b[n-8:]))
		} else {
			for i := uint64(0); i < n; i++ {
				kStoreU8(h+i, uint32(b[i]))
			}
		}
	}
	return h
}

func storeWords(h uint64, b []byte) {
	n := uint64(len(b)) &^ 7
	for i := uint64(0); i < n; i += 8 {
		kStoreU64(h+i, binary.LittleEndian.Uint64(b[i:]))
	}
}

// output sets the export's output. The block is allocated rounded up to 8
// bytes so it is written in whole words; output_set carries the true length.
func output(b []byte) int32 {
	n := uint64(len(b))
	h := kAlloc((n + 7) &^ 7)
	if h == 0 && n > 0 {
		return outOfMemory(n)
	}
	storeWords(h, b)
	if n%8 != 0 {
		var last [8]byte
		copy(last[:], b[n&^7:])
		kStoreU64(h+(n&^7), binary.LittleEndian.Uint64(last[:]))
	}
	kOutputSet(h, n)
	return 0
}

// fail makes the export fail with msg (error_set, return 1).
func fail(msg string) int32 {
	hostSetError(msg)
	return 1
}

func outOfMemory(n uint64) int32 {
	// The host recognises "out of memory" on stderr as category out_of_memory.
	os.Stderr.WriteString("mcpwasm: out of memory: the Extism kernel could not allocate " + strconv.FormatUint(n, 10) + " bytes\n")
	return 1
}

func hostSetError(msg string) {
	if h := writeBlock([]byte(msg)); h != 0 {
		kErrorSet(h)
	}
}

func hostClearError() { kErrorSet(0) }

func hostConfig(key string) (string, bool) {
	k := writeBlock([]byte(key))
	if k == 0 {
		return "", false
	}
	h := kConfigGet(k)
	if h == 0 {
		return "", false
	}
	return string(readBlock(h)), true
}

func hostNotify(fn string, payload []byte) {
	h := writeBlock(payload)
	if h == 0 {
		return
	}
	switch fn {
	case notifyProgress:
		hNotifyProgress(h)
	case notifyLog:
		hNotifyLoggingMessage(h)
	}
}

func hostCall(fn string, payload []byte) []byte {
	var h uint64
	switch fn {
	case requestRoots:
		h = hListRoots()
	default:
		p := writeBlock(payload)
		if p == 0 {
			return []byte(`{"error":{"message":"out of kernel memory for the request"}}`)
		}
		if fn == requestSampling {
			h = hCreateMessage(p)
		} else {
			h = hCreateElicitation(p)
		}
	}
	if h == 0 {
		return []byte(`{"error":{"message":"the host answered nothing"}}`)
	}
	return readBlock(h)
}
