;; kernel_bomb: allocates 1 GiB kernel blocks until alloc returns 0, then reports it. Expect guest_error (alloc failed).
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"kernel_bomb\",\"description\":\"Test fixture: kernel_bomb.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (data (i32.const 2048) "alloc failed\00")
  (func $call (result i32)
    (loop $l (br_if $l (i64.ne (call $alloc (i64.const 1073741824)) (i64.const 0))))
    (call $error_set (call $kstr (i32.const 2048)))
    (i32.const 1))
  (export "call_tool" (func $call))
