;; oob: loads far outside its memory. Expect trap (out of bounds).
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"oob\",\"description\":\"Test fixture: oob.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (i32.load (i32.const 0x7ffffff0)))
  (export "call_tool" (func $call))
