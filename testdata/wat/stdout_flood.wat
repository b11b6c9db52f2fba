;; stdout_flood: writes 1 MiB to stdout (fd 1) in 64 KiB writes, then answers "flooded". The host's stdout must stay clean. Expect success.
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"stdout_flood\",\"description\":\"Test fixture: stdout_flood.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"flooded\"}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32)
    (local $i i32)
    (drop (memory.grow (i32.const 2)))
    (memory.fill (i32.const 8192) (i32.const 0x7b) (i32.const 65536))
    (i32.store (i32.const 4096) (i32.const 8192))
    (i32.store (i32.const 4100) (i32.const 65536))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (i32.const 16)))
      (drop (call $fd_write (i32.const 1) (i32.const 4096) (i32.const 1) (i32.const 4104)))
      (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l)))
    (call $ok))
  (export "call_tool" (func $call))
