//! The README's hello plugin: `cargo build --release --target wasm32-wasi --example hello`.
use mcpwasm::{Call, Tool, ToolResult};

fn hello(call: &Call) -> Result<ToolResult, String> {
    let name = call.string("name")?;
    if name == "panic" {
        panic!("asked to panic");
    }
    Ok(ToolResult::text(format!("Hello, {}!", name)))
}

mcpwasm::plugin! {
    tools: [
        Tool::new("hello", "Greets someone by name",
            r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#, hello),
    ]
}
