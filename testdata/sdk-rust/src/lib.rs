//! The SDK parity plugin (testdata/SDK-PARITY.md), written with the Rust
//! guest SDK's public API only. `host/server/sdk_parity_test.go` drives it.

use mcpwasm::{
    Call, CompleteRequest, Completer, Completion, Level, Prompt, PromptRequest, PromptResult, ReadRequest, ReadResult,
    Resource, ResourceTemplate, Role, SamplingRequest, Tool, ToolResult, Value,
};

const LANG: &str = "rust";

fn greet(call: &Call) -> Result<ToolResult, String> {
    match call.opt_string("name")? {
        Some(name) if !name.is_empty() => Ok(ToolResult::text(format!("Hello, {}!", name))),
        _ => Err("name is required".into()),
    }
}

fn report(call: &Call) -> Result<ToolResult, String> {
    let steps = call.integer("steps")?;
    for i in 1..=steps {
        mcpwasm::progress(i as f64, Some(steps as f64), Some(&format!("step {}", i)));
    }
    mcpwasm::log_as(Level::Info, Some("parity"), Value::object().with("steps", steps));
    let out = Value::object()
        .with("lang", LANG)
        .with("steps", steps)
        .with("plugin", call.plugin())
        .with("greeting", mcpwasm::config("greeting"));
    Ok(ToolResult::json(out))
}

fn pixel(_: &Call) -> Result<ToolResult, String> {
    Ok(ToolResult::image(&[0x89, 0x50, 0x4E, 0x47], "image/png"))
}

fn ask(_: &Call) -> Result<ToolResult, String> {
    let req = SamplingRequest::new(16).with_text(Role::User, "ping");
    let answer = mcpwasm::create_message(&req).map_err(|e| format!("sampling unavailable: {}", e))?;
    Ok(ToolResult::text(format!("model said: {}", answer.text().unwrap_or(""))))
}

fn elicit(_: &Call) -> Result<ToolResult, String> {
    let schema = r#"{"type":"object","properties":{"name":{"type":"string"}}}"#;
    let e = mcpwasm::create_elicitation("Your name?", schema).map_err(|e| format!("elicitation unavailable: {}", e))?;
    Ok(ToolResult::text(format!("{} {}", e.action(), e.content()["name"].as_str().unwrap_or(""))))
}

fn roots(_: &Call) -> Result<ToolResult, String> {
    let roots = mcpwasm::list_roots().map_err(|e| format!("roots unavailable: {}", e))?;
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(ToolResult::text(uris.join(",")))
}

fn touch(call: &Call) -> Result<ToolResult, String> {
    let uri = call.string("uri")?;
    mcpwasm::notify_resource_updated(uri);
    Ok(ToolResult::text(format!("touched {}", uri)))
}

fn changed(_: &Call) -> Result<ToolResult, String> {
    mcpwasm::notify_tool_list_changed();
    mcpwasm::notify_resource_list_changed();
    mcpwasm::notify_prompt_list_changed();
    mcpwasm::notify_url_elicitation_completed("el-parity");
    Ok(ToolResult::text("changed"))
}

fn crash(_: &Call) -> Result<ToolResult, String> {
    panic!("crash on purpose");
}

const OBJECT: &str = r#"{"type":"object"}"#;

mcpwasm::plugin! {
    tools: [
        Tool::new("greet", "Greets someone by name",
            r#"{"type":"object","properties":{"name":{"type":"string"}}}"#, greet).title("Greeter"),
        Tool::new("report", "Reports progress and logs, then returns JSON",
            r#"{"type":"object","properties":{"steps":{"type":"integer"}},"required":["steps"]}"#, report),
        Tool::new("pixel", "Returns a four-byte image", OBJECT, pixel).annotations(r#"{"readOnlyHint":true}"#),
        Tool::new("ask", "Asks the client's model", OBJECT, ask),
        Tool::new("elicit", "Asks the user for a name", OBJECT, elicit),
        Tool::new("roots", "Lists the client's roots", OBJECT, roots),
        Tool::new("touch", "Says a resource changed",
            r#"{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}"#, touch),
        Tool::new("changed", "Says every list changed", OBJECT, changed),
        Tool::new("crash", "Panics", OBJECT, crash),
    ]
}

fn about(r: &ReadRequest) -> Result<ReadResult, String> {
    Ok(ReadResult::text(r.uri(), "text/plain", format!("parity plugin in {}", LANG)))
}

fn blob(r: &ReadRequest) -> Result<ReadResult, String> {
    Ok(ReadResult::blob(r.uri(), "application/octet-stream", &[0, 1, 2, 3]))
}

fn item(r: &ReadRequest) -> Result<ReadResult, String> {
    match r.var("id") {
        Some(id @ ("1" | "2" | "3")) => {
            Ok(ReadResult::text(r.uri(), "application/json", Value::object().with("id", id).to_json()))
        }
        _ => Err(format!("item not found: {}", r.uri())),
    }
}

mcpwasm::resources! {
    resources: [
        Resource::new("parity://about", "about", about).mime_type("text/plain"),
        Resource::new("parity://blob", "blob", blob).mime_type("application/octet-stream"),
    ],
    templates: [
        ResourceTemplate::new("parity://items/{id}", "item", item).mime_type("application/json"),
    ],
}

fn review(r: &PromptRequest) -> Result<PromptResult, String> {
    // "code" is required: the SDK fails the get with "code is required"
    // before this runs.
    let code = r.arg("code").unwrap_or("");
    let language = r.arg("language").unwrap_or("code");
    Ok(PromptResult::user(format!("Review this {}:\n{}", language, code)).with_description("Code review"))
}

mcpwasm::prompts! {
    prompts: [
        Prompt::new("review", "Review some code", review)
            .required_argument("code", "The code to review")
            .optional_argument("language", "The language it is written in"),
    ],
}

fn languages(r: &CompleteRequest) -> Result<Completion, String> {
    Ok(Completion::matching(r.value(), ["go", "python", "rust", "typescript"]))
}

fn item_ids(r: &CompleteRequest) -> Result<Completion, String> {
    Ok(Completion::matching(r.value(), ["1", "2", "3"]))
}

mcpwasm::completions! {
    completions: [
        Completer::prompt("review", "language", languages),
        Completer::resource("parity://items/{id}", "id", item_ids),
    ],
}
