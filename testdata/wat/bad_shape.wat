;; bad_shape: outputs JSON that is not a CallToolResult. Expect bad_output.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"bad_shape\",\"description\":\"Test fixture: bad_shape.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (data (i32.const 2048) "{\"content\":\"oops\"}\00")
  (func $call (result i32) (call $out_cstr (i32.const 2048)) (i32.const 0))
  (export "call_tool" (func $call))
