;; exit3: calls proc_exit(3). Expect exit.
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"exit3\",\"description\":\"Test fixture: exit3.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (call $proc_exit (i32.const 3)) (i32.const 0))
  (export "call_tool" (func $call))
