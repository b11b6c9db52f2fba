;; trap: executes unreachable. Expect trap.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"trap\",\"description\":\"Test fixture: trap.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) unreachable)
  (export "call_tool" (func $call))
