;; abort_msg: sets an error message, then traps, as an AssemblyScript abort()
;; or a panic hook without stderr does. Expect panic, with the message.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"abort_msg\",\"description\":\"Test fixture: abort with a message.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 2048) "assertion failed: index < length\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (call $error_set (call $kstr (i32.const 2048))) unreachable)
  (export "call_tool" (func $call))
