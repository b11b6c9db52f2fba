;; calls: the call-heavy kernels of the compute fixture (testdata/wat/compute.wat)
;; without the plugin around them, for BenchmarkStackBound: tree, a loop-free
;; call tree of 2^25 calls of a 10-instruction function, and leafloop, 2^25
;; iterations of a loop calling a small leaf. wat2wasm calls.wat -o calls.wasm
(module
  (memory 1)
  (func $tree (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 1))
      (else (i32.add
        (call $tree (i32.sub (local.get $n) (i32.const 1)))
        (call $tree (i32.sub (local.get $n) (i32.const 1)))))))
  (func (export "tree") (result i32)
    (i32.store (i32.const 2048) (call $tree (i32.const 24)))
    (i32.const 0))
  (func $mix (param $x i32) (result i32)
    (i32.add (i32.rotl (i32.mul (local.get $x) (i32.const 31)) (i32.const 7)) (i32.const 0x9e37)))
  (func (export "leafloop") (result i32)
    (local $x i32) (local $i i32)
    (local.set $i (i32.const 33554432))
    (loop $l
      (local.set $x (call $mix (i32.xor (local.get $x) (local.get $i))))
      (br_if $l (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))
    (i32.store (i32.const 2048) (local.get $x))
    (i32.const 0)))
