;; unknown_hostfn: imports a mcpwasm host function that does not exist.
;; Expect a load error naming it.
  (import "extism:host/user" "launch_missiles" (func $nope (param i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (i32.const 0))
  (export "call_tool" (func $call))
