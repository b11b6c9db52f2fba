;; guest_error: sets an error message and returns 1. Expect guest_error with the message.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"guest_error\",\"description\":\"Test fixture: guest_error.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (data (i32.const 2048) "boom from guest\00")
  (func $call (result i32) (call $error_set (call $kstr (i32.const 2048))) (i32.const 1))
  (export "call_tool" (func $call))
