;; list_changed: call_tool tells the host its tool list changed
;; (notify_tool_list_changed) and answers "changed". The host must re-read
;; list_tools — outside this call — and clients get notifications/tools/list_changed.
  (import "extism:host/user" "notify_tool_list_changed" (func $changed))
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"list_changed\",\"description\":\"Test fixture: says its list changed.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"changed\"}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (call $changed) (call $ok))
  (export "call_tool" (func $call))
