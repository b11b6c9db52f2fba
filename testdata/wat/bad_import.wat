;; bad_import: imports env.abort, which is outside the ABI. Expect a load error naming the import.
  (import "env" "abort" (func $abort (param i32 i32 i32 i32)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"bad_import\",\"description\":\"Test fixture: bad_import.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (i32.const 0))
  (export "call_tool" (func $call))
