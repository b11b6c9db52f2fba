;; importtable.wat: imports a table, from an allowed namespace.
;; Build: wat2wasm importtable.wat -o importtable.wasm   (wabt 1.0.32; see gen.sh)
(module
  (import "extism:host/user" "table" (table 1 funcref))
  (memory (export "memory") 1))
