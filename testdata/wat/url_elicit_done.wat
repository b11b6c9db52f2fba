;; url_elicit_done: tells the client that the out-of-band ("url" mode)
;; elicitation "el-42" completed (notify_url_elicitation_completed, the
;; hyper-mcp v2 host function), then answers the text "done".
;; The client must receive notifications/elicitation/complete for el-42.
  (import "extism:host/user" "notify_url_elicitation_completed" (func $completed (param i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"url_elicit_done\",\"description\":\"Test fixture: URL elicitation completed.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}\00")
  (data (i32.const 2048) "{\"elicitationId\":\"el-42\"}\00")
  (export "list_tools" (func $list))
  (func $call (result i32)
    (call $completed (call $kstr (i32.const 2048)))
    (call $ok))
  (export "call_tool" (func $call))
