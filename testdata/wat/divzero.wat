;; divzero: divides by zero. Expect trap.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"divzero\",\"description\":\"Test fixture: divzero.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (i32.div_s (i32.const 1) (i32.sub (i32.const 1) (i32.const 1))))
  (export "call_tool" (func $call))
