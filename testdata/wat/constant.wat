;; constant: a healthy plugin declaring two tools, "a" and "b"; call_tool
;; answers the same constant text ("constant") whichever is called. Used for
;; tool-name prefix and collision tests. Expect success.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"a\",\"description\":\"Test fixture: constant tool a.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"b\",\"description\":\"Test fixture: constant tool b.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"constant\"}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (call $ok))
  (export "call_tool" (func $call))
