;; kernel_u8: exercises the kernel's byte functions at the edges of their
;; ranges, and answers the 20 bytes they returned (not JSON): input_load_u8
;; inside, at and past the input; store_u8 then load_u8 on a block; both
;; below offset 64 (the kernel's own state) and far past the kernel's
;; memory (ignored / 0); then
;; the same reads after the guest moves its input with input_set, and after
;; reset, and where the input is. The host serves these in Go (host/plugin/internal/hostenv); the
;; answers must be the kernel's. Expect success.
(import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
(import "extism:host/env" "input_set" (func $input_set (param i64 i64)))
(import "extism:host/env" "reset" (func $reset))
(import "extism:host/env" "input_offset" (func $input_offset (result i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"kernel_u8\",\"description\":\"Test fixture: kernel byte functions.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $r (param $i i32) (param $v i32) (i32.store8 (i32.add (i32.const 4096) (local.get $i)) (local.get $v)))
  (func $call (result i32)
    (local $n i64) (local $h i64) (local $o i64) (local $i i64)
    (local.set $n (call $input_length))
    (call $r (i32.const 0) (call $input_load_u8 (i64.const 0)))
    (call $r (i32.const 1) (call $input_load_u8 (i64.sub (local.get $n) (i64.const 1))))
    (local.set $h (call $alloc (i64.const 8)))
    (call $store_u8 (local.get $h) (i32.const 7))
    (call $r (i32.const 2) (call $input_load_u8 (local.get $n)))
    ;; the 256 bytes past the input, OR-ed (the next block's header and data
    ;; are there): 0, as input_load_u8 reads nothing past the input
    (local.set $i (local.get $n))
    (block $d (loop $l
      (br_if $d (i64.ge_u (local.get $i) (i64.add (local.get $n) (i64.const 256))))
      (call $r (i32.const 3) (i32.or (i32.load8_u (i32.const 4099)) (call $input_load_u8 (local.get $i))))
      (local.set $i (i64.add (local.get $i) (i64.const 1))) (br $l)))
    (local.set $i (i64.const 0))
    (call $r (i32.const 4) (call $input_load_u8 (i64.const 0x10000000000)))
    (call $r (i32.const 5) (call $load_u8 (local.get $h)))
    (call $store_u8 (i64.add (local.get $h) (i64.const 1)) (i32.const 300))
    (call $r (i32.const 6) (call $load_u8 (i64.add (local.get $h) (i64.const 1))))
    ;; below 64 is the kernel's own state (in v1.7.0, offset 41 holds the
    ;; input's length): a store there does nothing
    (call $store_u8 (i64.const 41) (i32.const 9))
    (call $r (i32.const 7) (i32.wrap_i64 (call $input_length)))
    (call $r (i32.const 8) (call $load_u8 (i64.const 63)))
    (call $r (i32.const 9) (call $load_u8 (i64.const 64)))
    (call $store_u8 (i64.const 0x10000000000) (i32.const 5))
    (call $r (i32.const 10) (call $load_u8 (i64.const 0x10000000000)))
    (call $r (i32.const 11) (call $load_u8 (i64.const 0xffffffff)))
    (call $r (i32.const 18) (i32.wrap_i64 (call $input_offset)))
    (call $input_set (local.get $h) (i64.const 2))
    (call $r (i32.const 19) (i32.wrap_i64 (i64.sub (call $input_offset) (local.get $h))))
    (call $r (i32.const 12) (call $input_load_u8 (i64.const 0)))
    (call $r (i32.const 13) (call $input_load_u8 (i64.const 1)))
    (call $r (i32.const 14) (call $input_load_u8 (i64.const 2)))
    (call $r (i32.const 15) (i32.wrap_i64 (call $input_length)))
    (call $reset)
    (call $r (i32.const 16) (call $input_load_u8 (i64.const 0)))
    (call $r (i32.const 17) (i32.wrap_i64 (call $input_length)))
    (local.set $o (call $alloc (i64.const 20)))
    (block $d (loop $l
      (br_if $d (i64.ge_u (local.get $i) (i64.const 20)))
      (call $store_u8 (i64.add (local.get $o) (local.get $i))
        (i32.load8_u (i32.add (i32.const 4096) (i32.wrap_i64 (local.get $i)))))
      (local.set $i (i64.add (local.get $i) (i64.const 1))) (br $l)))
    (call $output_set (local.get $o) (i64.const 20))
    (i32.const 0))
  (export "call_tool" (func $call))
