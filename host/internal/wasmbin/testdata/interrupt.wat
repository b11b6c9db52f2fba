;; Shapes the interruption-point rewrite must preserve (instrument_test.go
;; runs each export before and after the rewrite and compares).
(module
  (import "env" "host_add" (func $host_add (param i32 i32) (result i32)))
  (type $binop (func (param i32 i32) (result i32)))
  (table 4 funcref)
  (elem (i32.const 0) $add $sub $tree $leaf)
  (elem declare func $mul)
  (global $g (mut i32) (i32.const 7))
  (global $fref funcref (ref.func $add))
  (memory (export "memory") 1)
  (start $init)
  (func $init (global.set $g (i32.const 11)))
  (func $add (type $binop) (i32.add (local.get 0) (local.get 1)))
  (func $sub (type $binop) (i32.sub (local.get 0) (local.get 1)))
  (func $mul (param i32 i32) (result i32) (i32.mul (local.get 0) (local.get 1)))
  (func $leaf (param i32 i32) (result i32) (i32.xor (local.get 0) (i32.const 0x55)))
  ;; a loop-free call tree: 2^n leaves
  (func $tree (export "tree") (param $n i32) (param $unused i32) (result i32)
    (if (result i32) (i32.le_s (local.get $n) (i32.const 0))
      (then (i32.const 1))
      (else (i32.add
        (call $tree (i32.sub (local.get $n) (i32.const 1)) (i32.const 0))
        (call $tree (i32.sub (local.get $n) (i32.const 2)) (i32.const 0))))))
  ;; a hash loop calling a leaf, returning from inside the loop
  (func $hash (export "hash") (param $n i32) (param $stop i32) (result i32)
    (local $h i32) (local $i i32)
    (local.set $h (i32.const 0x811c9dc5))
    (loop $l
      (local.set $h (i32.mul (i32.xor (local.get $h) (call $leaf (local.get $i) (i32.const 0))) (i32.const 0x01000193)))
      (if (i32.eq (local.get $i) (local.get $stop)) (then (return (local.get $h))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $h))
  ;; br_table to the function's own label from inside nested loops, and
  ;; call_indirect and a host call inside a loop
  (func $dispatch (export "dispatch") (param $n i32) (param $k i32) (result i32)
    (local $acc i32)
    (block $out
      (loop $outer
        (loop $inner
          (local.set $acc (call_indirect (type $binop) (local.get $acc) (local.get $n)
            (i32.rem_u (local.get $n) (i32.const 2))))
          (local.set $acc (call $host_add (local.get $acc) (global.get $g)))
          (local.set $n (i32.sub (local.get $n) (i32.const 1)))
          (drop (br_if 3 (local.get $acc) (i32.eq (local.get $n) (local.get $k))))
          (br_table $inner $outer $out
            (i32.rem_u (i32.add (local.get $n) (local.get $k)) (i32.const 3)))))
      (return (i32.const -1)))
    (local.get $acc))
  ;; multiple results and a block with a type index
  (func $pair (param i32) (result i32 i32)
    (local.get 0) (i32.mul (local.get 0) (i32.const 3)))
  (func $multi (export "multi") (param $n i32) (param $x i32) (result i32)
    (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (i32.add (call $pair (local.get $n)))))
      (local.tee $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l))
    (local.get $s))
  (func $multiret (param $n i32) (result i32 i64)
    (loop $l
      (if (i32.gt_s (local.get $n) (i32.const 100)) (then (return (local.get $n) (i64.const 9))))
      (local.set $n (i32.add (local.get $n) (i32.const 7)))
      (br $l))
    (unreachable))
  (func (export "multiret") (param $n i32) (param i32) (result i32)
    (call $multiret (local.get $n)) (i32.wrap_i64) (i32.add))
  ;; ref.func in a global and a table, bulk memory
  (func (export "refs") (param $n i32) (param i32) (result i32)
    (memory.fill (i32.const 0) (local.get $n) (i32.const 100))
    (i32.add (i32.load8_u (i32.const 50))
      (call_indirect (type $binop) (local.get $n) (i32.const 2) (i32.const 3))))
  ;; memory.grow: fails for n = 70000 pages, succeeds for 1
  (func (export "grow") (param $n i32) (param i32) (result i32)
    (i32.add (memory.grow (local.get $n)) (i32.const 1000)))
  ;; recursion n deep, returning through a br to the function's label
  (func $deep (export "deep") (param $n i32) (param $x i32) (result i32)
    (block $b (br_if $b (i32.eqz (local.get $n)))
      (return (i32.add (i32.const 1) (call $deep (i32.sub (local.get $n) (i32.const 1)) (local.get $x)))))
    (i32.const 0))
  ;; deep(n) a hundred times: the frames must be given back each time
  (func (export "deeploop") (param $n i32) (param $x i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (call $deep (local.get $n) (local.get $x))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 100))))
    (local.get $s))
  ;; spins forever
  (func (export "spin") (param i32 i32) (result i32)
    (loop $l (br $l)) (i32.const 0))
)
