;; grow.wat: a plain wazero module for the memalloc end-to-end test.
;; Build: wat2wasm grow.wat -o grow.wasm
(module
  (memory (export "memory") 1)
  ;; grow(pages) is memory.grow: the old size in pages, or -1 if refused.
  (func (export "grow") (param $pages i32) (result i32)
    (memory.grow (local.get $pages)))
  (func (export "size") (result i32) (memory.size))
  ;; fill(v) writes byte v over the whole memory.
  (func (export "fill") (param $v i32)
    (memory.fill (i32.const 0) (local.get $v)
      (i32.mul (memory.size) (i32.const 65536))))
  ;; nonzero() counts the 32-bit words of the memory that are not zero.
  (func (export "nonzero") (result i32)
    (local $i i32) (local $end i32) (local $n i32)
    (local.set $end (i32.mul (memory.size) (i32.const 65536)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (if (i32.load (local.get $i))
          (then (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $next)))
    (local.get $n)))
