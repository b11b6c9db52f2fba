;; abi_v2: declares ABI version 2. Expect a load error (this host supports v1).
;; ---
  (data (i32.const 0) "{\"tools\":[{\"name\":\"abi_v2\",\"description\":\"Test fixture: abi_v2.\",\"inputSchema\":{\"type\":\"object\"}}]}\00")
  (export "list_tools" (func $list))
  (func $call (result i32) (i32.const 0))
  (func (export "mcpwasm_abi_version") (result i32) (i32.const 2))
  (export "call_tool" (func $call))
