;; header_object: declares one tool, "h", whose inputSchema puts an
;; x-mcp-header annotation on an object property. go-sdk's AddTool panics on
;; it ("x-mcp-header can only be applied to primitive types"). The host must
;; refuse the plugin at load, naming it and the tool, and keep serving the
;; other plugins (before, the panic ended the whole server).
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"h\",\"description\":\"Test fixture: a header annotation go-sdk refuses.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\",\"x-mcp-header\":\"X-O\"}}}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"h\"}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (call $ok))
  (export "call_tool" (func $call))
