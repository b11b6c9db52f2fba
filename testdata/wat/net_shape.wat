;; net_shape: imports extism:host/env.http_request with the wrong type
;; ((i32, i32) -> i32; Extism's is (i64, i64) -> i64). Expect a load error
;; naming extism:host/env.http_request and both types.
  (import "extism:host/env" "http_request" (func $req (param i32 i32) (result i32)))
;; ---
  (data (i32.const 0) "{\"tools\":[]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (i32.const 0))
  (export "call_tool" (func $call))
