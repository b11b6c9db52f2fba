;; bad_tools: declares a tool whose name clients would reject. Expect a load error naming it.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"bad name!\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (i32.const 0))
  (export "call_tool" (func $call))
