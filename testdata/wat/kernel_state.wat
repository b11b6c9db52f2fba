;; kernel_state: exercises the kernel's state functions at the edges of
;; their ranges and answers the 8-byte words they left (not JSON):
;; output_set and error_set inside, before, at and past the kernel's heap
;; (a range outside it is ignored), an empty range, a length that wraps,
;; and what output_offset, output_length and error_get then read. The host
;; serves these in Go (host/plugin/internal/hostenv); the answers must be the
;; kernel's. An input of one byte sets an error and returns 1; of two, sets
;; an error and traps; of three, sets an error and returns 0. Expect
;; success for any other input.
(import "extism:host/env" "output_offset" (func $output_offset (result i64)))
(import "extism:host/env" "output_length" (func $output_length (result i64)))
(import "extism:host/env" "error_get" (func $error_get (result i64)))
(import "extism:host/env" "memory_bytes" (func $memory_bytes (result i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"kernel_state\",\"description\":\"Test fixture: kernel state functions.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 2048) "kernel_state error\00")
  (export "list_tools" (func $list))
  ;; $r records answer $i (8 bytes at 4096 + 8i).
  (func $r (param $i i32) (param $v i64) (i64.store (i32.add (i32.const 4096) (i32.shl (local.get $i) (i32.const 3))) (local.get $v)))
  (func $call (result i32)
    (local $h i64) (local $cap i64) (local $o i64) (local $i i64) (local $n i64)
    (local.set $n (call $input_length))
    (if (i64.eq (local.get $n) (i64.const 1)) (then
      (call $error_set (call $kstr (i32.const 2048)))
      (return (i32.const 1))))
    (if (i64.eq (local.get $n) (i64.const 2)) (then
      (call $error_set (call $kstr (i32.const 2048)))
      (unreachable)))
    (if (i64.eq (local.get $n) (i64.const 3)) (then
      (call $error_set (call $kstr (i32.const 2048)))
      (call $out_cstr (i32.const 2048))
      (return (i32.const 0))))
    (call $r (i32.const 0) (call $output_length))
    (call $r (i32.const 1) (call $output_offset))
    (call $r (i32.const 2) (call $error_get))
    (local.set $h (call $alloc (i64.const 16)))
    (local.set $cap (call $memory_bytes))
    (call $output_set (local.get $h) (i64.const 16))
    (call $r (i32.const 3) (i64.sub (call $output_offset) (local.get $h)))
    (call $r (i32.const 4) (call $output_length))
    (call $output_set (i64.const 64) (i64.const 1))
    (call $r (i32.const 5) (i64.sub (call $output_offset) (local.get $h)))
    (call $output_set (local.get $h) (i64.const 0))
    (call $r (i32.const 6) (call $output_length))
    (call $output_set (local.get $h) (i64.const -1))
    (call $r (i32.const 7) (call $output_length))
    (call $output_set (i64.add (local.get $cap) (i64.const 65)) (i64.const 1))
    (call $r (i32.const 8) (i64.sub (call $output_offset) (local.get $h)))
    (call $output_set (i64.add (local.get $cap) (i64.const 64)) (i64.const 1))
    (call $r (i32.const 9) (i64.sub (call $output_offset) (local.get $cap)))
    (call $output_set (i64.add (local.get $cap) (i64.const 64)) (i64.const 2))
    (call $r (i32.const 10) (call $output_length))
    (call $error_set (i64.const 64))
    (call $r (i32.const 11) (call $error_get))
    (call $error_set (local.get $h))
    (call $r (i32.const 12) (i64.sub (call $error_get) (local.get $h)))
    (call $error_set (i64.add (local.get $cap) (i64.const 65)))
    (call $r (i32.const 13) (i64.sub (call $error_get) (local.get $h)))
    (call $error_set (i64.const 0))
    (call $r (i32.const 14) (call $error_get))
    (call $r (i32.const 15) (local.get $cap))
    (local.set $o (call $alloc (i64.const 128)))
    (block $d (loop $l
      (br_if $d (i64.ge_u (local.get $i) (i64.const 128)))
      (call $store_u8 (i64.add (local.get $o) (local.get $i))
        (i32.load8_u (i32.add (i32.const 4096) (i32.wrap_i64 (local.get $i)))))
      (local.set $i (i64.add (local.get $i) (i64.const 1))) (br $l)))
    (call $output_set (local.get $o) (i64.const 128))
    (i32.const 0))
  (export "call_tool" (func $call))
