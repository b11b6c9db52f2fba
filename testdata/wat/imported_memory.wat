;; imported_memory: imports its memory instead of defining one. Expect a load error.
;; (Not assembled with the prelude, which defines a memory.)
(module
  (import "extism:host/env" "memory" (memory 1))
  (func (export "list_tools") (result i32) (i32.const 0))
  (func (export "call_tool") (result i32) (i32.const 0)))
