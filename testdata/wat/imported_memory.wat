;; imported_memory: imports its memory from extism:host/env instead of
;; defining one (and re-exports it as "memory"). Expect a load error.
;; (A whole module, not assembled with the prelude, which defines a memory.)
(module
  (import "extism:host/env" "memory" (memory 1))
  (export "memory" (memory 0))
  (func (export "list_tools") (result i32) (i32.const 0))
  (func (export "call_tool") (result i32) (i32.const 0)))
