;; slow_dup: declares the concrete resource dup://shared, but its
;; list_resources first sleeps 500 ms (WASI poll_oneoff); read_resource
;; answers the text "slow". Served together with dup_fast, which declares
;; the same URI at once: whichever comes first in the configuration must
;; serve it on every start, however the loads finish.
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
;; ---
  (data (i32.const 0) "{\"resources\":[{\"uri\":\"dup://shared\",\"name\":\"shared\",\"mimeType\":\"text/plain\"}]}\00")
  (data (i32.const 1024) "{\"contents\":[{\"uri\":\"dup://shared\",\"mimeType\":\"text/plain\",\"text\":\"slow\"}]}\00")
  (func $slow_list (result i32)
    (i64.store (i32.const 4096) (i64.const 1))
    (i32.store8 (i32.const 4104) (i32.const 0))
    (i32.store (i32.const 4112) (i32.const 1))
    (i64.store (i32.const 4120) (i64.const 500000000))
    (i64.store (i32.const 4128) (i64.const 0))
    (i32.store16 (i32.const 4136) (i32.const 0))
    (drop (call $poll_oneoff (i32.const 4096) (i32.const 4160) (i32.const 1) (i32.const 4224)))
    (call $list))
  (export "list_resources" (func $slow_list))
  (export "read_resource" (func $ok))
