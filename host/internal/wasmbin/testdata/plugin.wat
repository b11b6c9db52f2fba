;; plugin.wat: an Extism-shaped plugin whose funcref table has no maximum.
;; Build: wat2wasm plugin.wat -o plugin.wasm   (wabt 1.0.32; see gen.sh)
(module
  (type $v_i (func (result i32)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (table $t 2 funcref)
  (memory (export "memory") 1)
  (elem (table $t) (i32.const 0) func $list $call)
  (func $list (export "list_tools") (result i32) (i32.const 0))
  (func $call (export "call_tool") (result i32) (i32.const 1))
  ;; grow(n) is table.grow: the old size, or -1 if refused.
  (func (export "grow") (param i32) (result i32)
    (table.grow $t (ref.null func) (local.get 0)))
  (func (export "size") (result i32) (table.size $t))
  ;; dispatch(i) calls table slot i.
  (func (export "dispatch") (param i32) (result i32)
    (call_indirect $t (type $v_i) (local.get 0))))
