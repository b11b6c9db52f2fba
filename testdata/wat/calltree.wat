;; calltree: an exponential call tree without a single loop instruction:
;; f(n) calls f(n-1) twice, n = 34, so about 2^34 calls at depth 34 (no stack
;; overflow). wazero's own termination check sits only at loop headers and
;; never fires here; the interruption points stop it. Expect timeout.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"calltree\",\"description\":\"Test fixture: a loop-free call tree.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $f (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 1))
      (else (i32.add
        (call $f (i32.sub (local.get $n) (i32.const 1)))
        (call $f (i32.sub (local.get $n) (i32.const 1)))))))
  (func $call (result i32) (drop (call $f (i32.const 34))) (i32.const 0))
  (export "call_tool" (func $call))
