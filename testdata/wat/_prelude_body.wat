  ;; Helpers shared by every fixture. Memory offset 0 holds the fixture's
  ;; NUL-terminated tools JSON; 1024.. holds its other strings.
  (memory (export "memory") 1)
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
