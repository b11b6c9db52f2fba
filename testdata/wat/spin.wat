;; spin: loops forever. Expect timeout.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"spin\",\"description\":\"Test fixture: spin.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (loop $l (br $l)) (i32.const 0))
  (export "call_tool" (func $call))
