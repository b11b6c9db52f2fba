;; recurse_indirect: two functions recurse into each other without end, only
;; through call_indirect, without loops and without a direct call: no cycle
;; of the direct call graph shows it. Expect stack_overflow, with the stack
;; bounded (a bound that counted only directly recursive functions would let
;; wazero's stack reach 50 MB).
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"recurse_indirect\",\"description\":\"Test fixture: recurse_indirect.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (type $step (func (param i32) (result i32)))
  (table 2 2 funcref)
  (elem (i32.const 0) $ping $pong)
  (func $ping (param $n i32) (result i32)
    (call_indirect (type $step) (i32.add (local.get $n) (i32.const 1)) (i32.const 1)))
  (func $pong (param $n i32) (result i32)
    (call_indirect (type $step) (i32.add (local.get $n) (i32.const 1)) (i32.const 0)))
  (func $call (result i32) (call $ping (i32.const 0)))
  (export "list_tools" (func $list))
  (export "call_tool" (func $call))
