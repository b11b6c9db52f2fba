;; compute: compute-bound kernels for `mcpwasm bench` (figure 7), each a few
;; hundred milliseconds at engine speed, exported for direct calls: hash
;; (FNV-1a over 32 MiB), tree (a loop-free call tree of 2^25 calls), leafloop
;; (2^25 iterations calling a small leaf function) and tight (2^28 iterations
;; of a 3-instruction loop). Each stores its result at offset 2048. The tool
;; itself only answers "ok".
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"compute\",\"description\":\"Test fixture: compute kernels.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}\00")
  (export "list_tools" (func $list))
  (export "call_tool" (func $ok))
  (func (export "hash") (result i32)
    (local $h i32) (local $i i32)
    (if (i32.lt_u (memory.size) (i32.const 513))
      (then (drop (memory.grow (i32.sub (i32.const 513) (memory.size))))))
    (local.set $h (i32.const 0x811c9dc5))
    (local.set $i (i32.const 65536))
    (loop $l
      (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load8_u (local.get $i))) (i32.const 0x01000193)))
      (local.tee $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (i32.const 33619968))))
    (i32.store (i32.const 2048) (local.get $h))
    (i32.const 0))
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
    (i32.const 0))
  (func (export "tight") (result i32)
    (local $i i32)
    (local.set $i (i32.const 268435456))
    (loop $l
      (br_if $l (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))
    (i32.store (i32.const 2048) (local.get $i))
    (i32.const 0))
