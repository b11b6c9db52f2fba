;; echo_legacy: the legacy describe/call convention (mcp.run servlets, hyper-mcp v1); returns {"content":[{"type":"text","text":"echo"}],"structuredContent":<its whole input>}.
;; Shows what the guest received; also the minimal benchmark plugin. Expect success.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"echo_legacy\",\"description\":\"Returns its input envelope as structuredContent.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"echo\"}],\"structuredContent\":\00")
  (export "describe" (func $list))
  (func $echo (result i32)
    (local $n i64) (local $h i64) (local $i i64) (local $pre i64) (local $body i64)
    (local.set $pre (i64.extend_i32_u (call $strlen (i32.const 1024))))
    (local.set $n (call $input_length))
    (local.set $h (call $alloc (i64.add (i64.add (local.get $n) (local.get $pre)) (i64.const 1))))
    ;; The prefix goes 8 bytes per kernel call: each call into the kernel
    ;; costs microseconds, which is what a benchmark plugin must avoid.
    (block $d (loop $l
      (br_if $d (i64.gt_u (i64.add (local.get $i) (i64.const 8)) (local.get $pre)))
      (call $store_u64 (i64.add (local.get $h) (local.get $i))
        (i64.load (i32.add (i32.const 1024) (i32.wrap_i64 (local.get $i)))))
      (local.set $i (i64.add (local.get $i) (i64.const 8))) (br $l)))
    (block $d (loop $l
      (br_if $d (i64.ge_u (local.get $i) (local.get $pre)))
      (call $store_u8 (i64.add (local.get $h) (local.get $i))
        (i32.load8_u (i32.add (i32.const 1024) (i32.wrap_i64 (local.get $i)))))
      (local.set $i (i64.add (local.get $i) (i64.const 1))) (br $l)))
    (local.set $body (i64.add (local.get $h) (local.get $pre)))
    (local.set $i (i64.const 0))
    (block $d2 (loop $l2
      (br_if $d2 (i64.gt_u (i64.add (local.get $i) (i64.const 8)) (local.get $n)))
      (call $store_u64 (i64.add (local.get $body) (local.get $i)) (call $input_load_u64 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 8))) (br $l2)))
    (block $d3 (loop $l3
      (br_if $d3 (i64.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $body) (local.get $i)) (call $input_load_u8 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 1))) (br $l3)))
    (call $store_u8 (i64.add (local.get $body) (local.get $n)) (i32.const 125))
    (call $output_set (local.get $h) (i64.add (i64.add (local.get $n) (local.get $pre)) (i64.const 1)))
    (i32.const 0))
  (export "call" (func $echo))
