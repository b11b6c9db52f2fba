;; net_reserved: imports from mcpwasm:host/net, the namespace mcpwasm serves
;; its network functions from. Expect a load error: it is reserved.
  (import "mcpwasm:host/net" "http_request" (func $req (param i64 i64) (result i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (i32.const 0))
  (export "call_tool" (func $call))
