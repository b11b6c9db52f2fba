;; datamerge.wat: active data segments that Preflight merges, out of order,
;; with gaps of 1, 4095 (the largest merged) and 4096 (the smallest kept)
;; bytes, an empty segment, and a table without a maximum, so that both
;; rewrites apply. No data count section (nothing here uses memory.init).
;; Build: wat2wasm datamerge.wat -o datamerge.wasm   (wabt 1.0.32; see gen.sh)
(module
  (table 1 funcref)
  (memory (export "memory") 2)
  (func (export "peek") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (data (i32.const 4123) "third")       ;; [4123,4128): 4095 after the second
  (data (i32.const 16) "first")          ;; [16,21)
  (data (i32.const 22) "second")         ;; [22,28): 1 byte after the first
  (data (i32.const 8223) "")             ;; empty, 4095 after the third
  (data (i32.const 12319) "fourth")      ;; [12319,12325): 4096 after: apart
  (data (i32.const 12325) "\ff\00\ff")   ;; adjacent to the fourth
  (data (i32.const 131070) "\01\02"))    ;; the last two bytes of memory
