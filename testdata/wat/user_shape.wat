;; user_shape: imports extism:host/user.notify_progress as a global instead
;; of a function. Expect a load error naming it and the kind.
  (import "extism:host/user" "notify_progress" (global $g i64))
;; ---
  (data (i32.const 0) "{\"tools\":[]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (i32.const 0))
  (export "call_tool" (func $call))
