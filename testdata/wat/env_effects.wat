;; env_effects: exercises the extism:host/env functions with effects
;; outside the kernel memory: log_* and get_log_level, config_get,
;; var_set and var_get. Its call_tool answers raw 8-byte words, not JSON:
;; the log level, config_get's handle and length, var_get's for a set var
;; and for a deleted one, memory_bytes; then the config value's and the
;; var's bytes. An input of one byte sets a var past the 1 MiB var limit
;; (Extism traps: "Variable store is full"); of two bytes, moves the input
;; to another block with input_set and answers what input_load_u64(0) and
;; input_load_u8(0) then read (go-sdk's input_load_u64 keeps reading where
;; the call put the input; the kernel's input_load_u8 follows input_set).
;; host/plugin/internal/hostenv's
;; differential test compares it with Extism's go-sdk.
(import "extism:host/env" "log_info" (func $log_info (param i64)))
(import "extism:host/env" "log_warn" (func $log_warn (param i64)))
(import "extism:host/env" "log_debug" (func $log_debug (param i64)))
(import "extism:host/env" "get_log_level" (func $get_log_level (result i32)))
(import "extism:host/env" "config_get" (func $config_get (param i64) (result i64)))
(import "extism:host/env" "var_get" (func $var_get (param i64) (result i64)))
(import "extism:host/env" "var_set" (func $var_set (param i64 i64)))
(import "extism:host/env" "length" (func $length (param i64) (result i64)))
(import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
(import "extism:host/env" "memory_bytes" (func $memory_bytes (result i64)))
(import "extism:host/env" "input_set" (func $input_set (param i64 i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"env_effects\",\"description\":\"Test fixture: logs, config and vars.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "info from the guest\00")
  (data (i32.const 1100) "warning from the guest\00")
  (data (i32.const 1200) "debug from the guest\00")
  (data (i32.const 1300) "greeting\00")
  (data (i32.const 1400) "counter\00")
  (data (i32.const 1500) "value-one\00")
  (data (i32.const 1600) "gone\00")
  (data (i32.const 1700) "big\00")
  (export "list_tools" (func $list))
  ;; $w stores word $i of the answer in block $o.
  (func $w (param $o i64) (param $i i64) (param $v i64)
    (call $store_u64 (i64.add (local.get $o) (i64.shl (local.get $i) (i64.const 3))) (local.get $v)))
  ;; $copy copies block $src's bytes to $dst.
  (func $copy (param $dst i64) (param $src i64)
    (local $i i64) (local $n i64)
    (local.set $n (call $length (local.get $src)))
    (block $d (loop $l
      (br_if $d (i64.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $dst) (local.get $i)) (call $load_u8 (i64.add (local.get $src) (local.get $i))))
      (local.set $i (i64.add (local.get $i) (i64.const 1))) (br $l))))
  (func $call (result i32)
    (local $c i64) (local $v i64) (local $g i64) (local $o i64) (local $n i64)
    (if (i64.eq (call $input_length) (i64.const 2)) (then
      (local.set $c (call $kstr (i32.const 1300)))
      (call $input_set (local.get $c) (i64.const 8))
      (local.set $o (call $alloc (i64.const 16)))
      (call $w (local.get $o) (i64.const 0) (call $input_load_u64 (i64.const 0)))
      (call $w (local.get $o) (i64.const 1) (i64.extend_i32_u (call $input_load_u8 (i64.const 0))))
      (call $output_set (local.get $o) (i64.const 16))
      (return (i32.const 0))))
    (if (i64.eq (call $input_length) (i64.const 1)) (then
      (call $var_set (call $kstr (i32.const 1700)) (call $alloc (i64.const 1048576)))
      (return (i32.const 0))))
    (call $log_info (call $kstr (i32.const 1024)))
    (call $log_warn (call $kstr (i32.const 1100)))
    (call $log_debug (call $kstr (i32.const 1200)))
    (local.set $c (call $config_get (call $kstr (i32.const 1300))))
    (call $var_set (call $kstr (i32.const 1400)) (call $kstr (i32.const 1500)))
    (call $var_set (call $kstr (i32.const 1600)) (call $kstr (i32.const 1500)))
    (call $var_set (call $kstr (i32.const 1600)) (i64.const 0))
    (local.set $v (call $var_get (call $kstr (i32.const 1400))))
    (local.set $g (call $var_get (call $kstr (i32.const 1600))))
    (local.set $n (i64.add (i64.const 64) (i64.add (call $length (local.get $c)) (call $length (local.get $v)))))
    (local.set $o (call $alloc (local.get $n)))
    (call $w (local.get $o) (i64.const 0) (i64.extend_i32_u (call $get_log_level)))
    (call $w (local.get $o) (i64.const 1) (local.get $c))
    (call $w (local.get $o) (i64.const 2) (call $length (local.get $c)))
    (call $w (local.get $o) (i64.const 3) (local.get $v))
    (call $w (local.get $o) (i64.const 4) (call $length (local.get $v)))
    (call $w (local.get $o) (i64.const 5) (local.get $g))
    (call $w (local.get $o) (i64.const 6) (call $memory_bytes))
    (call $w (local.get $o) (i64.const 7) (i64.const 0))
    (call $copy (i64.add (local.get $o) (i64.const 64)) (local.get $c))
    (call $copy (i64.add (i64.add (local.get $o) (i64.const 64)) (call $length (local.get $c))) (local.get $v))
    (call $output_set (local.get $o) (local.get $n))
    (i32.const 0))
  (export "call_tool" (func $call))
