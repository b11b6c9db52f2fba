;; segments.wat: every section the structural walk follows: globals of each
;; value type with each constant-expression form, element segments in all
;; eight encodings, active and passive data (with a data count section, as
;; memory.init needs), a start function, and a name section with local names.
;; Build: wat2wasm --debug-names segments.wat -o segments.wasm   (wabt 1.0.32; see gen.sh)
(module
  (type $v (func))
  (import "extism:host/env" "g" (global $imported i32))
  (table $t 4 funcref)
  (table $t2 2 funcref)
  (table $u 2 externref)
  (memory (export "memory") 1 1)
  (global $a i32 (global.get $imported))
  (global $b (mut i64) (i64.const -1234567890123))
  (global $c f32 (f32.const 1.5))
  (global $d f64 (f64.const -2.25))
  (global $e v128 (v128.const i64x2 1 2))
  (global $f funcref (ref.func $start))
  (global $g externref (ref.null extern))
  (elem (i32.const 0) $start)                                  ;; 0
  (elem func $start)                                           ;; 1
  (elem (table $t2) (i32.const 1) func $start)                 ;; 2
  (elem declare func $start)                                   ;; 3
  (elem (i32.const 2) funcref (ref.func $start) (ref.null func)) ;; 4
  (elem externref (ref.null extern))                           ;; 5
  (elem (table $u) (i32.const 0) externref (ref.null extern))  ;; 6
  (elem declare funcref (ref.null func))                       ;; 7
  (data (i32.const 16) "active")
  (data $p "passive")
  (func $start (local $x i32) (local $y i64) (local $z v128)
    (memory.init $p (i32.const 0) (i32.const 0) (i32.const 1)))
  (start $start))
