;; bad_json: outputs text that is not JSON. Expect bad_output.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"bad_json\",\"description\":\"Test fixture: bad_json.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (data (i32.const 2048) "not json{\00")
  (func $call (result i32) (call $out_cstr (i32.const 2048)) (i32.const 0))
  (export "call_tool" (func $call))
