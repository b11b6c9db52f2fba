;; dataoob.wat: mergeable active data segments, the last of which ends one
;; byte past the one-page memory, so instantiation must fail before and
;; after Preflight merges them.
;; Build: wat2wasm dataoob.wat -o dataoob.wasm   (wabt 1.0.32; see gen.sh)
(module
  (memory 1)
  (data (i32.const 65500) "in bounds")
  (data (i32.const 0) "start")
  (data (i32.const 65530) "1234567"))   ;; [65530,65537): one byte too far
