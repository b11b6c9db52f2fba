;; notify_flood: declares the resource test://flood/own (list_resources).
;; call_tool reports test://static-text updated (a URI it did not declare:
;; the conformance plugin's), then its own test://flood/own, then sends
;; 10,000 notify_progress, and answers "flooded". The host must drop the
;; update for the URI it did not declare, deliver its own, and forward at
;; most the per-call notification budget in all.
  (import "extism:host/user" "notify_progress" (func $notify_progress (param i64)))
  (import "extism:host/user" "notify_resource_updated" (func $updated (param i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"notify_flood\",\"description\":\"Test fixture: a notification flood.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"flooded\"}]}\00")
  (data (i32.const 2048) "{\"progress\":1,\"message\":\"tick\"}\00")
  (data (i32.const 2112) "{\"uri\":\"test://static-text\"}\00")
  (data (i32.const 2176) "{\"uri\":\"test://flood/own\"}\00")
  (data (i32.const 3072) "{\"resources\":[{\"uri\":\"test://flood/own\",\"name\":\"own\"}]}\00")
  (export "list_tools" (func $list))
  (func $list_resources (result i32) (call $out_cstr (i32.const 3072)) (i32.const 0))
  (export "list_resources" (func $list_resources))
  (func $call (result i32)
    (local $i i32)
    (call $updated (call $kstr (i32.const 2112)))
    (call $updated (call $kstr (i32.const 2176)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (i32.const 10000)))
      (call $notify_progress (call $kstr (i32.const 2048)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (call $ok))
  (export "call_tool" (func $call))
