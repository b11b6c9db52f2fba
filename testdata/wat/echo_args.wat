;; echo_args: returns {"content":[{"type":"text","text":<its arguments' JSON text>}]},
;; what the bench's plain go-sdk server answers (echo.wat answers its whole
;; input envelope), so the stdio figure compares like with like. It finds
;; "arguments" as a member of the envelope's "request" (depth 2), copies that
;; value's text, and escapes it as a JSON string. The host's envelope writes
;; <, > and & in strings as \u003c, \u003e and \u0026, which it passes on as
;; they are. Expect success.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"echo\",\"description\":\"Returns its arguments as text.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"\00")
  (data (i32.const 1100) "\"}]}\00")
  (data (i32.const 1200) "\"arguments\"\00")
  (data (i32.const 1300) "0123456789abcdef")
  (export "list_tools" (func $list))

  ;; The input is copied to $in; the answer is built at $in + n.
  (global $in i32 (i32.const 4096))

  (func $ws (param $c i32) (result i32)
    (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9)))
            (i32.or (i32.eq (local.get $c) (i32.const 10)) (i32.eq (local.get $c) (i32.const 13)))))

  ;; skipstr returns the offset just past the string whose opening quote is at $i.
  (func $skipstr (param $i i32) (param $n i32) (result i32)
    (local $c i32)
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $c (i32.load8_u (i32.add (global.get $in) (local.get $i))))
      (if (i32.eq (local.get $c) (i32.const 92)) ;; backslash: skip the escaped byte
        (then (local.set $i (i32.add (local.get $i) (i32.const 2))) (br $l)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $d (i32.eq (local.get $c) (i32.const 34)))
      (br $l)))
    (local.get $i))

  ;; key reports whether the 11 bytes at $i are "arguments" (quotes included).
  (func $key (param $i i32) (param $n i32) (result i32)
    (local $k i32)
    (if (i32.gt_u (i32.add (local.get $i) (i32.const 11)) (local.get $n)) (then (return (i32.const 0))))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $k) (i32.const 11)))
      (if (i32.ne (i32.load8_u (i32.add (global.get $in) (i32.add (local.get $i) (local.get $k))))
                  (i32.load8_u (i32.add (i32.const 1200) (local.get $k))))
        (then (return (i32.const 0))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $l)))
    (i32.const 1))

  (func $echo (result i32)
    (local $n i32) (local $i i32) (local $c i32) (local $depth i32) (local $prev i32)
    (local $vs i32) (local $ve i32) (local $o i32) (local $start i32) (local $h i64) (local $len i32) (local $pages i32)
    (local.set $n (i32.wrap_i64 (call $input_length)))
    ;; Room for the input and its escaped copy (at most 6 bytes a byte).
    (local.set $pages (i32.add (i32.shr_u (i32.add (global.get $in) (i32.mul (local.get $n) (i32.const 7))) (i32.const 16)) (i32.const 2)))
    (if (i32.gt_u (local.get $pages) (memory.size))
      (then (if (i32.lt_s (memory.grow (i32.sub (local.get $pages) (memory.size))) (i32.const 0))
        (then (unreachable)))))
    (block $d (loop $l
      (br_if $d (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
      (i64.store (i32.add (global.get $in) (local.get $i)) (call $input_load_u64 (i64.extend_i32_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 8))) (br $l)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store8 (i32.add (global.get $in) (local.get $i)) (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l)))

    ;; Find the member "arguments" at depth 2 (inside "request").
    (local.set $i (i32.const 0))
    (local.set $vs (i32.const -1))
    (block $found (loop $scan
      (br_if $found (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $c (i32.load8_u (i32.add (global.get $in) (local.get $i))))
      (if (i32.eq (local.get $c) (i32.const 34))
        (then
          (if (i32.and (i32.eq (local.get $depth) (i32.const 2))
                (i32.and (i32.or (i32.eq (local.get $prev) (i32.const 123)) (i32.eq (local.get $prev) (i32.const 44)))
                         (call $key (local.get $i) (local.get $n))))
            (then
              (local.set $i (i32.add (local.get $i) (i32.const 11)))
              (block $d (loop $l ;; whitespace, the colon, whitespace
                (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
                (local.set $c (i32.load8_u (i32.add (global.get $in) (local.get $i))))
                (br_if $d (i32.eqz (i32.or (call $ws (local.get $c)) (i32.eq (local.get $c) (i32.const 58)))))
                (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l)))
              (local.set $vs (local.get $i))
              (br $found)))
          (local.set $i (call $skipstr (local.get $i) (local.get $n)))
          (local.set $prev (i32.const 34))
          (br $scan)))
      (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91)))
        (then (local.set $depth (i32.add (local.get $depth) (i32.const 1)))))
      (if (i32.or (i32.eq (local.get $c) (i32.const 125)) (i32.eq (local.get $c) (i32.const 93)))
        (then (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))))
      (if (i32.eqz (call $ws (local.get $c))) (then (local.set $prev (local.get $c))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $scan)))

    ;; The value's end: a string, an object or array (nesting counted), or a scalar.
    (local.set $ve (local.get $vs))
    (if (i32.ge_s (local.get $vs) (i32.const 0))
      (then
        (local.set $i (local.get $vs))
        (local.set $depth (i32.const 0))
        (block $d (loop $l
          (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
          (local.set $c (i32.load8_u (i32.add (global.get $in) (local.get $i))))
          (if (i32.eq (local.get $c) (i32.const 34))
            (then
              (local.set $i (call $skipstr (local.get $i) (local.get $n)))
              (br_if $d (i32.eqz (local.get $depth)))
              (br $l)))
          (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91)))
            (then (local.set $depth (i32.add (local.get $depth) (i32.const 1)))))
          (if (i32.or (i32.eq (local.get $c) (i32.const 125)) (i32.eq (local.get $c) (i32.const 93)))
            (then
              (if (i32.eqz (local.get $depth)) (then (br $d))) ;; a scalar ended by its object's close
              (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
              (if (i32.eqz (local.get $depth)) (then (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $d)))))
          (if (i32.and (i32.eqz (local.get $depth))
                (i32.or (i32.eq (local.get $c) (i32.const 44)) (call $ws (local.get $c))))
            (then (br $d)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $l)))
        (local.set $ve (local.get $i))))

    ;; The answer: the prefix, the value escaped as a JSON string, the suffix.
    (local.set $start (i32.add (global.get $in) (local.get $n)))
    (local.set $o (local.get $start))
    (memory.copy (local.get $o) (i32.const 1024) (call $strlen (i32.const 1024)))
    (local.set $o (i32.add (local.get $o) (call $strlen (i32.const 1024))))
    (local.set $i (local.get $vs))
    (block $d (loop $l
      (br_if $d (i32.ge_s (local.get $i) (local.get $ve)))
      (local.set $c (i32.load8_u (i32.add (global.get $in) (local.get $i))))
      (if (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
        (then
          (i32.store8 (local.get $o) (i32.const 92))
          (i32.store8 (i32.add (local.get $o) (i32.const 1)) (local.get $c))
          (local.set $o (i32.add (local.get $o) (i32.const 2))))
        (else (if (i32.lt_u (local.get $c) (i32.const 32))
          (then ;; \u00XX
            (i32.store (local.get $o) (i32.const 0x3030755c)) ;; the bytes \ u 0 0, little-endian
            (i32.store8 (i32.add (local.get $o) (i32.const 4)) (i32.load8_u (i32.add (i32.const 1300) (i32.shr_u (local.get $c) (i32.const 4)))))
            (i32.store8 (i32.add (local.get $o) (i32.const 5)) (i32.load8_u (i32.add (i32.const 1300) (i32.and (local.get $c) (i32.const 15)))))
            (local.set $o (i32.add (local.get $o) (i32.const 6))))
          (else
            (i32.store8 (local.get $o) (local.get $c))
            (local.set $o (i32.add (local.get $o) (i32.const 1)))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (memory.copy (local.get $o) (i32.const 1100) (call $strlen (i32.const 1100)))
    (local.set $o (i32.add (local.get $o) (call $strlen (i32.const 1100))))

    ;; Into a kernel block, 8 bytes per kernel call.
    (local.set $len (i32.sub (local.get $o) (local.get $start)))
    (local.set $h (call $alloc (i64.extend_i32_u (local.get $len))))
    (local.set $i (i32.const 0))
    (block $d (loop $l
      (br_if $d (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $len)))
      (call $store_u64 (i64.add (local.get $h) (i64.extend_i32_u (local.get $i))) (i64.load (i32.add (local.get $start) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 8))) (br $l)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $len)))
      (call $store_u8 (i64.add (local.get $h) (i64.extend_i32_u (local.get $i))) (i32.load8_u (i32.add (local.get $start) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l)))
    (call $output_set (local.get $h) (i64.extend_i32_u (local.get $len)))
    (i32.const 0))
  (export "call_tool" (func $echo))
