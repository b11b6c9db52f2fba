// Package hostenv serves Extism's host ABI, the extism:host/env import
// namespace, in Go on plain wazero: the kernel's memory and allocator,
// input, output and error, config, vars, logs, the HTTP hook, and the
// guest runtime's init. Extism's go-sdk v1.7.1, with its v1.7.0 Wasm
// kernel, is the reference: kernel_test.go runs the kernel's functions
// on both and compares every answer, trap and byte of memory, and
// differential_test.go runs every module the repository builds through
// both.
//
// # Kernel memory
//
// Each guest instance has its own kernel memory (Kernel): a byte arena
// laid out as the Wasm kernel's memory, byte for byte. It starts at
// MinPages (16) pages, as the kernel module declares, and grows by pages
// when an allocation needs it, up to the plugin's memory limit. Its
// memory comes from the call's wazero memory allocator, so it is charged
// to the call's memory budget like the guest's own memory and released
// with the instance. Offsets are wasm32 addresses: the low 32 bits of a
// handle.
//
// At offset 1 sits the root: a set-up flag (1), the allocator's position
// (9) and length (17), the error block (25), the input's offset and
// length (33, 41), the output's (49, 57). Blocks start at 65: a 12-byte
// header (status: 0 unused, 1 active, 2 free; size; used) and the data.
// A handle is the offset of a block's data. The root is set up by the
// first function that needs it (all but load_u8, store_u8 and the 8-byte
// accessors).
//
// # Functions
//
// Handles and offsets are i64; "past the memory" means at or beyond its
// size. A trap unwinds the guest; the call fails as a trap.
//
//	alloc(n i64) i64          a new block of n bytes; 0 for n = 0 or when the memory cannot
//	                          grow. Bumps the position; freed blocks are reused (the first
//	                          large enough; split when 128+ bytes larger) only when the
//	                          allocation would otherwise grow the memory.
//	free(h i64)               marks the active block h free; h = 0 or not a block: nothing.
//	                          Freeing the input block sets the input's length to 0.
//	length(h i64) i64         the active block h's length; 0 for h = 0, an offset below 64
//	                          or past the memory, or anything that is not an active block's
//	                          handle (found by walking the blocks).
//	length_unsafe(h i64) i64  the length in the header before h if its status byte says
//	                          active (no walk); 0 for h = 0 or out of bounds as length.
//	load_u8(p i64) i32        the byte at p; 0 for p below 64 or beyond the memory's size;
//	                          p equal to the size traps.
//	store_u8(p i64, v i32)    writes the byte; nothing below 64 or beyond the size; p equal
//	                          to the size traps.
//	load_u64(p i64) i64       8 bytes at p (wasm32 address), no check below 64: go-sdk
//	store_u64(p, v i64)       serves these in Go, not the kernel. Past the memory traps
//	                          ("could not read value at offset: 0", "could not write ...").
//	input_load_u8(i i64) i32  the input's byte i (from the root's input range); 0 at or past
//	                          the input's length.
//	input_load_u64(i i64) i64 8 bytes at i from where the call put the input (go-sdk's
//	                          rule: the original input, even after input_set), no length
//	                          check; past the memory traps.
//	input_length() i64        the root's input range.
//	input_offset() i64
//	input_set(h, n i64)       sets the input range if its first and last bytes (h, h+n-1,
//	                          unsigned) lie in [65, 65+allocator length); else nothing.
//	                          n = 0 is refused unless h > 65.
//	output_set(h, n i64)      the same for the output range.
//	output_length() i64       the root's output range.
//	output_offset() i64
//	reset()                   forgets every block (zeroes their bytes up to the position)
//	                          and the input, output and error. The call does it first.
//	error_set(h i64)          sets the error block; error_set(0) clears it; a handle
//	                          outside [65, 65+length) is ignored.
//	error_get() i64           the error block, or 0.
//	memory_bytes() i64        the allocator's length (65472 at start, plus grown pages).
//	config_get(k i64) i64     a new block holding the plugin's config value for the key
//	                          in block k, or 0 if unset; k is not freed.
//	var_get(k i64) i64        a new block holding the var, or 0; frees k.
//	var_set(k, v i64)         sets the var to block v's bytes (v = 0 deletes it); frees
//	                          k and v. Traps when vars are off (MaxVarBytes 0) or would
//	                          pass MaxVarBytes (Extism's accounting: 40 bytes an entry
//	                          plus names and values).
//	http_request(r, b i64) i64  the HTTP hook (Instance.HTTP): request JSON in block r,
//	http_status_code() i32      body in block b (0: none), response body as a new block.
//	http_headers() i64          No hook: requests trap, status 0, headers 0.
//	get_log_level() i32       the instance's level: 0 trace .. 4 error, 2147483647 off.
//	log_trace(m i64)          the message in block m to Instance.Log if its level is at or
//	log_debug, log_info,      above LogLevel; frees m.
//	log_warn, log_error
//
// A call (Instance.Run) does what go-sdk's CallWithContext does: reset,
// the input in a new block made the input, the export looked up (an
// unknown one or one with two results is an error), the runtime init
// before the instance's first export (see Init), the export called; a
// proc_exit(0) is success and its code the result; the guest's error
// block is the call's error whatever the result.
//
// # What differs from Extism, and why
//
//   - Kernel memory is a Go arena, not a second Wasm instance per call:
//     no module to instantiate, no random source seeded for it, no export
//     looked up per kernel call. Its bytes are the same.
//   - A kernel trap is reported as a host function's: its message says
//     what was out of bounds, and wazero adds "(recovered by wazero)".
//   - When the kernel cannot allocate a block for a value the host writes
//     (config_get, var_get, the input), go-sdk writes the bytes at offset
//     0, over the kernel's root, and goes on; here the function answers 0
//     and writes nothing, and a call whose input does not fit fails.
//   - log_* below the level free the message without reading it; go-sdk
//     with no level set reads it first (and traps if it is out of bounds).
//   - alloc of 2^48 bytes or more fails; the Wasm kernel truncates the page
//     count to 32 bits first.
//   - http_request is the embedder's (mcpwasm: host/netguard, which
//     answers refusals instead of trapping); there is no allow-list here.
//   - The log level is per instance, not process-wide.
package hostenv
