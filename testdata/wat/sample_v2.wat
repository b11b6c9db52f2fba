;; sample_v2: declares the same tool as sample ("sample") and answers the
;; text "sample v2" at once, without asking the client. The hot-reload
;; tests replace a file holding sample with this one: new calls get
;; "sample v2" while a call still running on the old version (waiting for
;; the client's sampling answer) finishes with the old version's answer.
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"sample\",\"description\":\"Test fixture: the second version of sample.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"sample v2\"}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (call $ok))
  (export "call_tool" (func $call))
