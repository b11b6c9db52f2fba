;; fillbomb: a loop of memory.fill calls of 50 MiB each. Charged one unit per
;; fill, it would run minutes between interruption points; the rewrite charges
;; the length. Expect timeout.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"fillbomb\",\"description\":\"x\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32)
    (drop (memory.grow (i32.const 800)))
    (loop $l (memory.fill (i32.const 0) (i32.const 0) (i32.const 52428800)) (br $l))
    (i32.const 0))
  (export "call_tool" (func $call))
