//! panic_rust: `call_tool` panics with "rust panic on purpose". Rust's panic
//! hook writes the message to stderr, then the module aborts (a trap). The
//! host must answer isError with category `panic` and the message.

#[link(wasm_import_module = "extism:host/env")]
extern "C" {
    fn alloc(len: u64) -> u64;
    fn store_u8(offs: u64, v: u8);
    fn output_set(offs: u64, len: u64);
}

const TOOLS: &[u8] =
    br#"{"tools":[{"name":"panic_rust","description":"Test fixture: panics.","inputSchema":{"type":"object"}}]}"#;

#[no_mangle]
pub extern "C" fn list_tools() -> i32 {
    unsafe {
        let h = alloc(TOOLS.len() as u64);
        for (i, b) in TOOLS.iter().enumerate() {
            store_u8(h + i as u64, *b);
        }
        output_set(h, TOOLS.len() as u64);
    }
    0
}

#[no_mangle]
pub extern "C" fn call_tool() -> i32 {
    panic!("rust panic on purpose");
}
