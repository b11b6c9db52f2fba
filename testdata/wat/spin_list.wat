;; spin_list: list_tools loops for ever, list_resources traps, list_prompts
;; declares the prompt "p" (call_tool and get_prompt answer "ok"). For the tests that the
;; reads of a cold load, which share one instance (host/plugin/listing.go),
;; still each have their own time limit, and that a read that failed leaves
;; the next one a fresh instance.
;; ---
  (data (i32.const 512) "{\"prompts\":[{\"name\":\"p\",\"description\":\"Test fixture: spin_list.\"}]}\00")
  (data (i32.const 1024) "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"ok\"}}]}\00")
  (func $spin (result i32) (loop $l (br $l)) (i32.const 0))
  (func $trap (result i32) (unreachable))
  (func $prompts (result i32) (call $out_cstr (i32.const 512)) (i32.const 0))
  (export "list_tools" (func $spin))
  (export "list_resources" (func $trap))
  (export "list_prompts" (func $prompts))
  (export "get_prompt" (func $ok))
  (export "call_tool" (func $ok))
