;; table_bomb: has a table with no maximum and tries to grow it by 0x7ffffff0 entries. The host caps tables at load, so the grow must fail. Expect success with the text "table.grow refused".
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"table_bomb\",\"description\":\"Test fixture: table_bomb.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"table.grow refused\"}]}\00")
  (export "list_tools" (func $list))
  (table $t 1 funcref)
  (func $call (result i32)
    (if (i32.ne (table.grow $t (ref.null func) (i32.const 0x7ffffff0)) (i32.const -1)) (then unreachable))
    (call $ok))
  (export "call_tool" (func $call))
