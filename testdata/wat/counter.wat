;; counter: answers how many calls this instance has served, kept twice: in
;; a mutable global and in a byte of linear memory. Every call runs in a
;; fresh instance, so the answer is always "1" (text "1/1"); an instance
;; reused for a second call would answer "2/2". Expect success.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"counter\",\"description\":\"Test fixture: counts the calls its instance served.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"0/0\"}]}\00")
  (global $calls (mut i32) (i32.const 0))
  (export "list_tools" (func $list))
  (func $call (result i32)
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    ;; the '0' before the slash: the global's count
    (i32.store8 (i32.const 1059) (i32.add (i32.const 48) (global.get $calls)))
    ;; the '0' after it: the count in memory (incremented in place)
    (i32.store8 (i32.const 1061) (i32.add (i32.load8_u (i32.const 1061)) (i32.const 1)))
    (call $ok))
  (export "call_tool" (func $call))
