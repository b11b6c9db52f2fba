;; big_start: declares 512 initial pages (32 MiB) of memory and naps 300 ms before answering "rested". A whole module, not the prelude form, because the prelude declares a 1-page memory. Used to check that the memory budget is charged with initial sizes before instantiation.
(module
  ;; Extism kernel imports every fixture may use.
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
  ;; Helpers shared by every fixture. Memory offset 0 holds the fixture's
  ;; NUL-terminated tools JSON; 1024.. holds its other strings.
  (memory (export "memory") 512)
  (func $strlen (param $p i32) (result i32)
    (local $n i32)
    (block $d (loop $l
      (br_if $d (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $l)))
    (local.get $n))
  ;; kstr copies the NUL-terminated string at $p into a new kernel block.
  (func $kstr (param $p i32) (result i64)
    (local $h i64) (local $i i32) (local $n i32)
    (local.set $n (call $strlen (local.get $p)))
    (local.set $h (call $alloc (i64.extend_i32_u (local.get $n))))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $h) (i64.extend_i32_u (local.get $i)))
        (i32.load8_u (i32.add (local.get $p) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $h))
  ;; out_cstr makes the NUL-terminated string at $p the call's output.
  (func $out_cstr (param $p i32)
    (call $output_set (call $kstr (local.get $p)) (i64.extend_i32_u (call $strlen (local.get $p)))))
  (func $list (result i32) (call $out_cstr (i32.const 0)) (i32.const 0))
  ;; ok outputs a CallToolResult whose text is the string at 1024.
  (func $ok (result i32) (call $out_cstr (i32.const 1024)) (i32.const 0))
  (data (i32.const 0) "{\"tools\":[{\"name\":\"big_start\",\"description\":\"Test fixture: big_start.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"rested\"}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32)
    (i64.store (i32.const 4096) (i64.const 1))
    (i32.store8 (i32.const 4104) (i32.const 0))
    (i32.store (i32.const 4112) (i32.const 1))
    (i64.store (i32.const 4120) (i64.const 300000000))
    (i64.store (i32.const 4128) (i64.const 0))
    (i32.store16 (i32.const 4136) (i32.const 0))
    (drop (call $poll_oneoff (i32.const 4096) (i32.const 4160) (i32.const 1) (i32.const 4224)))
    (call $ok))
  (export "call_tool" (func $call))
)
