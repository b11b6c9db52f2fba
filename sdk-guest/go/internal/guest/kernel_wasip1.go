//go:build wasip1

package guest

import (
	"encoding/binary"
	"os"
	"strconv"
)

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

// mcpwasm's host functions (extism:host/user, ABI.md §6). Each is called by
// one Go function below, so only those a plugin calls become its imports.

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

//go:wasmimport extism:host/user notify_resource_updated
func hNotifyResourceUpdated(h uint64)

//go:wasmimport extism:host/user notify_tool_list_changed
func hNotifyToolListChanged()

//go:wasmimport extism:host/user notify_resource_list_changed
func hNotifyResourceListChanged()

//go:wasmimport extism:host/user notify_prompt_list_changed
func hNotifyPromptListChanged()

//go:wasmimport extism:host/user notify_url_elicitation_completed
func hNotifyURLElicitationCompleted(h uint64)

// Serve runs one export: run gets the call's input and answers its output,
// or an error that fails the export (error_set, return 1).
func Serve(run func(input []byte) ([]byte, error)) int32 {
	out, err := run(Input())
	if err != nil {
		return Fail(err.Error())
	}
	return Output(out)
}

// Input copies the call's input out of the kernel, eight bytes per host
// call. input_load_u64 is a native host function, the cheap path; the
// byte-wise kernel calls are used only for inputs shorter than 8 bytes.
func Input() []byte {
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

// Output sets the export's output and returns 0, or 1 if the kernel is out
// of memory. The block is allocated rounded up to 8 bytes so it is written
// in whole words; output_set carries the true length.
func Output(b []byte) int32 {
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

// Fail makes the export fail with msg (error_set) and returns 1, the value
// the export should return.
func Fail(msg string) int32 {
	SetError(msg)
	return 1
}

func outOfMemory(n uint64) int32 {
	// The host recognises "out of memory" on stderr as category out_of_memory.
	os.Stderr.WriteString("mcpwasm: out of memory: the Extism kernel could not allocate " + strconv.FormatUint(n, 10) + " bytes\n")
	return 1
}

// SetError sets the call's error message (error_set).
func SetError(msg string) {
	if h := writeBlock([]byte(msg)); h != 0 {
		kErrorSet(h)
	}
}

// ClearError clears the error message again.
func ClearError() { kErrorSet(0) }

// Config reads a value of the plugin's config table (config_get).
func Config(key string) (string, bool) {
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

// NotifyProgress calls notify_progress with a JSON payload.
func NotifyProgress(payload []byte) {
	if h := writeBlock(payload); h != 0 {
		hNotifyProgress(h)
	}
}

// NotifyLoggingMessage calls notify_logging_message with a JSON payload.
func NotifyLoggingMessage(payload []byte) {
	if h := writeBlock(payload); h != 0 {
		hNotifyLoggingMessage(h)
	}
}

// NotifyResourceUpdated calls notify_resource_updated with a JSON payload.
func NotifyResourceUpdated(payload []byte) {
	if h := writeBlock(payload); h != 0 {
		hNotifyResourceUpdated(h)
	}
}

// NotifyToolListChanged calls notify_tool_list_changed.
func NotifyToolListChanged() { hNotifyToolListChanged() }

// NotifyResourceListChanged calls notify_resource_list_changed.
func NotifyResourceListChanged() { hNotifyResourceListChanged() }

// NotifyPromptListChanged calls notify_prompt_list_changed.
func NotifyPromptListChanged() { hNotifyPromptListChanged() }

// NotifyURLElicitationCompleted calls notify_url_elicitation_completed with
// a JSON payload.
func NotifyURLElicitationCompleted(payload []byte) {
	if h := writeBlock(payload); h != 0 {
		hNotifyURLElicitationCompleted(h)
	}
}

// CreateMessage calls create_message with a JSON payload and returns the
// host's JSON answer.
func CreateMessage(payload []byte) []byte {
	p := writeBlock(payload)
	if p == 0 {
		return noMemory()
	}
	return answer(hCreateMessage(p))
}

// CreateElicitation calls create_elicitation with a JSON payload and returns
// the host's JSON answer.
func CreateElicitation(payload []byte) []byte {
	p := writeBlock(payload)
	if p == 0 {
		return noMemory()
	}
	return answer(hCreateElicitation(p))
}

// ListRoots calls list_roots and returns the host's JSON answer.
func ListRoots() []byte { return answer(hListRoots()) }

func noMemory() []byte { return ErrorJSON("out of kernel memory for the request") }

func answer(h uint64) []byte {
	if h == 0 {
		return ErrorJSON("the host answered nothing")
	}
	return readBlock(h)
}
