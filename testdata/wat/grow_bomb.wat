;; grow_bomb: grows memory a page at a time until refused, then aborts, as a language runtime does on OOM. Expect out_of_memory.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"grow_bomb\",\"description\":\"Test fixture: grow_bomb.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32)
    (loop $l (br_if $l (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))
    unreachable)
  (export "call_tool" (func $call))
