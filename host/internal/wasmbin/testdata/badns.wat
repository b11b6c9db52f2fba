;; badns.wat: imports from a namespace outside the ABI's three ("env").
;; Build: wat2wasm badns.wat -o badns.wasm   (wabt 1.0.32; see gen.sh)
(module
  (import "extism:host/env" "input_length" (func (result i64)))
  (import "env" "abort" (func (param i32 i32 i32 i32)))
  (memory (export "memory") 1))
