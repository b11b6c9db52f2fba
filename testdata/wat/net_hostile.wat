;; net_hostile: calls Extism's http_request with what a broken or hostile
;; guest could pass. Each extra export outputs the body http_request
;; returned. Expect answers naming the problem (status 400), never a trap.
  (import "extism:host/env" "http_request" (func $http_request (param i64 i64) (result i64)))
  (import "extism:host/env" "http_status_code" (func $http_status_code (result i32)))
  (import "extism:host/env" "http_headers" (func $http_headers (result i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[]}\00")
  (data (i32.const 1024) "not json\00")
  (data (i32.const 1100) "{\"url\":\"http://127.0.0.1:1/\"}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (i32.const 0))
  (export "call_tool" (func $call))
  ;; out outputs the block h, and fails if the status is not 400.
  (func $out (param $h i64) (result i32)
    (call $output_set (local.get $h) (call $length (local.get $h)))
    (i32.ne (call $http_status_code) (i32.const 400)))
  (func (export "bad_handle") (result i32)
    (call $out (call $http_request (i64.const 0x7ffffff0) (i64.const 0))))
  (func (export "bad_json") (result i32)
    (call $out (call $http_request (call $kstr (i32.const 1024)) (i64.const 0))))
  (func (export "bad_body") (result i32)
    (call $out (call $http_request (call $kstr (i32.const 1100)) (i64.const 0x7ffffff0))))
  ;; before_any: no request yet, so status 0 and no headers.
  (func (export "before_any") (result i32)
    (i32.or (i32.ne (call $http_status_code) (i32.const 0))
            (i64.ne (call $http_headers) (i64.const 0))))
