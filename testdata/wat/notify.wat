;; notify: reports progress three times and sends one log message through the
;; mcpwasm host functions, then answers "notified". Expect success, with three
;; notifications/progress (when the client sent a progress token) and one
;; notifications/message (when the client's log level allows info).
  (import "extism:host/user" "notify_progress" (func $notify_progress (param i64)))
  (import "extism:host/user" "notify_logging_message" (func $notify_log (param i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"notify\",\"description\":\"Test fixture: progress and log.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"notified\"}]}\00")
  (data (i32.const 2048) "{\"progress\":1,\"total\":3,\"message\":\"one\"}\00")
  (data (i32.const 2112) "{\"progress\":2,\"total\":3,\"message\":\"two\"}\00")
  (data (i32.const 2176) "{\"progress\":3,\"total\":3,\"message\":\"three\"}\00")
  (data (i32.const 2240) "{\"level\":\"info\",\"logger\":\"notify\",\"data\":\"hello from the guest\"}\00")
  (export "list_tools" (func $list))
  (func $call (result i32)
    (call $notify_progress (call $kstr (i32.const 2048)))
    (call $notify_progress (call $kstr (i32.const 2112)))
    (call $notify_progress (call $kstr (i32.const 2176)))
    (call $notify_log (call $kstr (i32.const 2240)))
    (call $ok))
  (export "call_tool" (func $call))
