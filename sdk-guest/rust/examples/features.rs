//! Exercises the rest of the API on a real host (progress, log, config,
//! images, structured results, panics): `cargo build --release --target wasm32-wasi --example features`.
use mcpwasm::{Call, Level, Tool, ToolResult, Value};

fn features(call: &Call) -> Result<ToolResult, String> {
    let n = call.integer("n")?;
    mcpwasm::progress(1.0, Some(2.0), Some("half way"));
    mcpwasm::log(Level::Info, Value::object().with("n", n));
    mcpwasm::debug("features: a line for the server log");
    let greeting = mcpwasm::config("greeting").unwrap_or_else(|| "(none)".into());
    let out = Value::object().with("n", n).with("greeting", greeting).with("plugin", call.plugin());
    Ok(ToolResult::json(out).with_image(b"foo", "image/png"))
}

fn boom(call: &Call) -> Result<ToolResult, String> {
    let v: Vec<i64> = Vec::new();
    Ok(ToolResult::text(format!("{}", v[call.integer("i")? as usize])))
}

mcpwasm::plugin! {
    tools: [
        Tool::new("features", "Exercises the SDK", r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#, features),
        Tool::new("boom", "Indexes an empty vector", r#"{"type":"object"}"#, boom),
    ]
}
