;; tables.wat: three tables: no maximum, a maximum above any sane cap, and a
;; small maximum that must be left alone.
;; Build: wat2wasm tables.wat -o tables.wasm   (wabt 1.0.32; see gen.sh)
(module
  (table $open 1 funcref)
  (table $huge 0 4000000000 externref)
  (table $small 1 5 funcref)
  (memory (export "memory") 1 2)
  (func (export "grow_open") (param i32) (result i32)
    (table.grow $open (ref.null func) (local.get 0)))
  (func (export "grow_huge") (param i32) (result i32)
    (table.grow $huge (ref.null extern) (local.get 0)))
  (func (export "grow_small") (param i32) (result i32)
    (table.grow $small (ref.null func) (local.get 0))))
