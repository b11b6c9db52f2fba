;; slow_list: list_tools sleeps 10 s (WASI poll_oneoff) before declaring its
;; one tool, "t" (call_tool answers "slow"), so the plugin takes 10 s to load
;; (give it a call timeout above that). While it loads, calls to the other
;; plugins' tools must be served; with a load deadline below 10 s it must be
;; reported as not ready in time, and lists must not wait for it.
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"t\",\"description\":\"Test fixture: slow to list.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"slow\"}]}\00")
  (func $slow_list (result i32)
    (i64.store (i32.const 4096) (i64.const 1))
    (i32.store8 (i32.const 4104) (i32.const 0))
    (i32.store (i32.const 4112) (i32.const 1))
    (i64.store (i32.const 4120) (i64.const 10000000000))
    (i64.store (i32.const 4128) (i64.const 0))
    (i32.store16 (i32.const 4136) (i32.const 0))
    (drop (call $poll_oneoff (i32.const 4096) (i32.const 4160) (i32.const 1) (i32.const 4224)))
    (call $list))
  (export "list_tools" (func $slow_list))
  (func $call (result i32) (call $ok))
  (export "call_tool" (func $call))
