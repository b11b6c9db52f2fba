;; roots_update: asks the client for its roots (list_roots), reports that
;; test://static-text was updated, and returns the roots answer verbatim:
;;   {"content":[],"structuredContent":<ListRootsResult or {"error":...}>}
;; Tests list_roots and notify_resource_updated.
  (import "extism:host/user" "list_roots" (func $list_roots (result i64)))
  (import "extism:host/user" "notify_resource_updated" (func $updated (param i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/env" "load_u64" (func $load_u64 (param i64) (result i64)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"roots_update\",\"description\":\"Test fixture: roots and resource updates.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[],\"structuredContent\":\00")
  (data (i32.const 2048) "{\"uri\":\"test://static-text\"}\00")
  (export "list_tools" (func $list))
  (func $call (result i32)
    (local $r i64) (local $n i64) (local $pre i64) (local $h i64) (local $i i64)
    (call $updated (call $kstr (i32.const 2048)))
    (local.set $r (call $list_roots))
    (local.set $n (call $length (local.get $r)))
    (local.set $pre (i64.extend_i32_u (call $strlen (i32.const 1024))))
    (local.set $h (call $alloc (i64.add (i64.add (local.get $pre) (local.get $n)) (i64.const 1))))
    (block $d (loop $l
      (br_if $d (i64.ge_u (local.get $i) (local.get $pre)))
      (call $store_u8 (i64.add (local.get $h) (local.get $i)) (i32.load8_u (i32.add (i32.const 1024) (i32.wrap_i64 (local.get $i)))))
      (local.set $i (i64.add (local.get $i) (i64.const 1))) (br $l)))
    (local.set $i (i64.const 0))
    (block $d (loop $l
      (br_if $d (i64.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (i64.add (local.get $h) (local.get $pre)) (local.get $i)) (call $load_u8 (i64.add (local.get $r) (local.get $i))))
      (local.set $i (i64.add (local.get $i) (i64.const 1))) (br $l)))
    (call $store_u8 (i64.add (i64.add (local.get $h) (local.get $pre)) (local.get $n)) (i32.const 125))
    (call $output_set (local.get $h) (i64.add (i64.add (local.get $pre) (local.get $n)) (i64.const 1)))
    (i32.const 0))
  (export "call_tool" (func $call))
