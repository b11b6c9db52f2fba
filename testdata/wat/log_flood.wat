;; log_flood: sends 10,000 log messages in one call, then answers "flooded".
;; The host must forward at most its per-call limit and stay responsive.
  (import "extism:host/user" "notify_logging_message" (func $notify_log (param i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"log_flood\",\"description\":\"Test fixture: floods logs.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"flooded\"}]}\00")
  (data (i32.const 2240) "{\"level\":\"warning\",\"data\":\"flood\"}\00")
  (export "list_tools" (func $list))
  (func $call (result i32)
    (local $i i32)
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (i32.const 10000)))
      (call $notify_log (call $kstr (i32.const 2240)))
      (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l)))
    (call $ok))
  (export "call_tool" (func $call))
