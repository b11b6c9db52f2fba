;; hang: serves the resource hang://r and the prompt "hang"; read_resource
;; and get_prompt ask WASI poll_oneoff for a u64::MAX ns sleep, which lasts
;; until the call is cancelled or reaches its deadline. For the tests that a
;; client going away stops a read or a prompt, as it stops a tool call.
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
;; ---
  (data (i32.const 0) "{\"resources\":[{\"uri\":\"hang://r\",\"name\":\"r\",\"mimeType\":\"text/plain\"}]}\00")
  (data (i32.const 512) "{\"prompts\":[{\"name\":\"hang\",\"description\":\"Test fixture: never answers.\"}]}\00")
  (data (i32.const 1024) "{\"contents\":[{\"uri\":\"hang://r\",\"mimeType\":\"text/plain\",\"text\":\"woke\"}]}\00")
  (data (i32.const 2048) "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"woke\"}}]}\00")
  (func $sleep
    (i64.store (i32.const 4096) (i64.const 1))
    (i32.store8 (i32.const 4104) (i32.const 0))
    (i32.store (i32.const 4112) (i32.const 1))
    (i64.store (i32.const 4120) (i64.const -1))
    (i64.store (i32.const 4128) (i64.const 0))
    (i32.store16 (i32.const 4136) (i32.const 0))
    (drop (call $poll_oneoff (i32.const 4096) (i32.const 4160) (i32.const 1) (i32.const 4224))))
  (func $read (result i32) (call $sleep) (call $ok))
  (func $prompts (result i32) (call $out_cstr (i32.const 512)) (i32.const 0))
  (func $get (result i32) (call $sleep) (call $out_cstr (i32.const 2048)) (i32.const 0))
  (export "list_resources" (func $list))
  (export "read_resource" (func $read))
  (export "list_prompts" (func $prompts))
  (export "get_prompt" (func $get))
