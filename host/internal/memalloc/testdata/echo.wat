;; echo.wat: the smallest Extism plugin that moves data, for the memalloc
;; end-to-end test and benchmarks. echo sets the output to the input block.
;; Build: wat2wasm echo.wat -o echo.wasm
(module
  (import "extism:host/env" "input_offset" (func $input_offset (result i64)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (func (export "echo") (result i32)
    (call $output_set (call $input_offset) (call $input_length))
    (i32.const 0)))
