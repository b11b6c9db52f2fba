;; big_output: outputs an 8 MiB text result. Expect output_too_large under a 4 MiB cap.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"big_output\",\"description\":\"Test fixture: big_output.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (data (i32.const 2048) "{\"content\":[{\"type\":\"text\",\"text\":\"\00")
  (func $call (result i32)
    (local $h i64) (local $i i64) (local $n i64)
    (local.set $n (i64.const 8388608))
    (local.set $h (call $alloc (local.get $n)))
    (block $d (loop $l
      (br_if $d (i64.ge_u (local.get $i) (local.get $n)))
      (call $store_u64 (i64.add (local.get $h) (local.get $i)) (i64.const 0x6161616161616161))
      (local.set $i (i64.add (local.get $i) (i64.const 8))) (br $l)))
    (call $output_set (local.get $h) (local.get $n))
    (i32.const 0))
  (export "call_tool" (func $call))
