;; recurse: recurses without end and without loops. Expect stack_overflow.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"recurse\",\"description\":\"Test fixture: recurse.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (call $call))
  (export "call_tool" (func $call))
