;; trapstart.wat: a module whose start function traps after its memory is
;; built; wazero drops that memory without calling Free.
;; Build: wat2wasm trapstart.wat -o trapstart.wasm
(module
  (memory 2)
  (func $start (i32.store (i32.const 0) (i32.const 42)) unreachable)
  (start $start))
