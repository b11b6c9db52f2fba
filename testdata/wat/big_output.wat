;; big_output: outputs a valid CallToolResult whose one text content is 8 MiB
;; of "a" (8 MiB + 39 bytes in all). Expect output_too_large under a 4 MiB cap
;; (give it a memory limit of at least 16 MiB so the kernel can hold it).
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"big_output\",\"description\":\"Test fixture: big_output.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (data (i32.const 2048) "{\"content\":[{\"type\":\"text\",\"text\":\"\00")
  (data (i32.const 2112) "\"}]}\00")
  ;; put copies the NUL-terminated string at $p to kernel offset $at and
  ;; returns the offset just past it.
  (func $put (param $at i64) (param $p i32) (result i64)
    (local $i i32)
    (block $d (loop $l
      (br_if $d (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $i)))))
      (call $store_u8 (i64.add (local.get $at) (i64.extend_i32_u (local.get $i)))
        (i32.load8_u (i32.add (local.get $p) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l)))
    (i64.add (local.get $at) (i64.extend_i32_u (local.get $i))))
  (func $call (result i32)
    (local $h i64) (local $p i64) (local $end i64) (local $n i64)
    (local.set $n (i64.const 8388608))
    (local.set $h (call $alloc (i64.add (local.get $n)
      (i64.extend_i32_u (i32.add (call $strlen (i32.const 2048)) (call $strlen (i32.const 2112)))))))
    (local.set $p (call $put (local.get $h) (i32.const 2048)))
    (local.set $end (i64.add (local.get $p) (local.get $n)))
    (block $d (loop $l
      (br_if $d (i64.ge_u (local.get $p) (local.get $end)))
      (call $store_u64 (local.get $p) (i64.const 0x6161616161616161))
      (local.set $p (i64.add (local.get $p) (i64.const 8))) (br $l)))
    (local.set $end (call $put (local.get $p) (i32.const 2112)))
    (call $output_set (local.get $h) (i64.sub (local.get $end) (local.get $h)))
    (i32.const 0))
  (export "call_tool" (func $call))
