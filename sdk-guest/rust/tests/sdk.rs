use mcpwasm::testing::{call_tool, call_tool_full, list_tools, run, set_config};
use mcpwasm::{Call, Level, Tool, ToolResult, Value};

const SCHEMA: &str = r#"{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}"#;

fn double(c: &Call) -> Result<ToolResult, String> {
    let n = c.integer("n")?;
    mcpwasm::progress(1.0, Some(2.0), Some("half way"));
    mcpwasm::log(Level::Info, Value::object().with("n", n));
    Ok(ToolResult::json(Value::object().with("double", n * 2)))
}

fn greet(c: &Call) -> Result<ToolResult, String> {
    let greeting = mcpwasm::config("greeting").unwrap_or_else(|| "Hello".into());
    let name = c.opt_string("name")?.unwrap_or("world");
    Ok(ToolResult::text(format!("{}, {}!", greeting, name)).with_image(b"GIF89a", "image/gif"))
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new("double", "Doubles n", SCHEMA, double).title("Double").annotations(r#"{"readOnlyHint":true}"#),
        Tool::new("greet", "Greets", r#"{"type":"object"}"#, greet),
        Tool::new("job", "A task", r#"{"type":"object"}"#, greet).task("required").task_input_first(),
    ]
}

#[test]
fn lists_tools() {
    let v = list_tools(&tools()).unwrap();
    let t = &v["tools"];
    assert_eq!(t[0]["name"].as_str(), Some("double"));
    assert_eq!(t[0]["title"].as_str(), Some("Double"));
    assert_eq!(t[0]["inputSchema"]["required"][0].as_str(), Some("n"));
    assert_eq!(t[0]["annotations"]["readOnlyHint"].as_bool(), Some(true));
    assert_eq!(t[1]["description"].as_str(), Some("Greets"));
    assert!(t[1]["execution"].is_null());
    assert_eq!(t[2]["execution"]["taskSupport"].as_str(), Some("required"));
    assert_eq!(t[2]["execution"]["inputFirst"].as_bool(), Some(true));
}

#[test]
fn rejects_bad_declarations() {
    fn h(_: &Call) -> Result<ToolResult, String> {
        Ok(ToolResult::text(""))
    }
    let e = list_tools(&[Tool::new("bad name", "", "{}", h)]).unwrap_err();
    assert!(e.contains("[A-Za-z0-9_-]"), "{}", e);
    // Dots are refused, as the host refuses them (and model APIs do).
    let e = list_tools(&[Tool::new("a.b", "", r#"{"type":"object"}"#, h)]).unwrap_err();
    assert!(e.contains("\"a.b\""), "{}", e);
    let e = list_tools(&[Tool::new("t", "", "{\"type\":", h)]).unwrap_err();
    assert!(e.contains("tool t: inputSchema is not valid JSON"), "{}", e);
    let e = list_tools(&[Tool::new("t", "", r#"{"type":"string"}"#, h)]).unwrap_err();
    assert!(e.contains("\"type\": \"object\""), "{}", e);
    let e = list_tools(&[Tool::new("t", "", r#"{"type":"object"}"#, h), Tool::new("t", "", r#"{"type":"object"}"#, h)])
        .unwrap_err();
    assert!(e.contains("declared twice"), "{}", e);
    let e = list_tools(&[Tool::new("t", "", r#"{"type":"object"}"#, h).task("always")]).unwrap_err();
    assert!(e.contains("task mode must be"), "{}", e);
    let e = list_tools(&[Tool::new("t", "", r#"{"type":"object"}"#, h).task_input_first()]).unwrap_err();
    assert!(e.contains("task_input_first without task"), "{}", e);
}

#[test]
fn calls_and_notifies() {
    let o = call_tool_full(&tools(), "double", r#"{"n":21}"#);
    assert_eq!(o.output["structuredContent"]["double"].as_i64(), Some(42));
    assert_eq!(o.output["content"][0]["text"].as_str(), Some(r#"{"double":42}"#));
    assert!(o.output.get("isError").is_none());
    assert_eq!(o.host_calls.len(), 2);
    assert_eq!(o.host_calls[0].function, "notify_progress");
    assert_eq!(o.host_calls[0].payload.to_json(), r#"{"progress":1,"total":2,"message":"half way"}"#);
    assert_eq!(o.host_calls[1].function, "notify_logging_message");
    assert_eq!(o.host_calls[1].payload.to_json(), r#"{"level":"info","data":{"n":21}}"#);
}

#[test]
fn handler_errors_are_tool_errors() {
    let v = call_tool(&tools(), "double", r#"{"n":"x"}"#);
    assert_eq!(v["isError"].as_bool(), Some(true));
    assert_eq!(v["content"][0]["text"].as_str(), Some("argument \"n\" must be an integer, got string"));
    let v = call_tool(&tools(), "double", "{}");
    assert_eq!(v["content"][0]["text"].as_str(), Some("missing required argument \"n\" (an integer)"));
    let v = call_tool(&tools(), "nope", "{}");
    assert_eq!(v["isError"].as_bool(), Some(true));
    assert_eq!(v["content"][0]["text"].as_str(), Some("unknown tool \"nope\""));
}

#[test]
fn config_and_images() {
    set_config("greeting", "Hi");
    let v = call_tool(&tools(), "greet", r#"{"name":"Ada"}"#);
    assert_eq!(v["content"][0]["text"].as_str(), Some("Hi, Ada!"));
    assert_eq!(v["content"][1]["type"].as_str(), Some("image"));
    assert_eq!(v["content"][1]["data"].as_str(), Some("R0lGODlh"));
    assert_eq!(v["content"][1]["mimeType"].as_str(), Some("image/gif"));
}

#[test]
fn malformed_envelope_is_an_export_failure() {
    let ts = tools();
    for input in ["", "[]", "{\"request\":{}}", "{\"request\":{\"name\":\"double\",\"arguments\":[1]}}"] {
        let o = run(|| mcpwasm::exports::call_tool(&ts), input);
        assert_eq!(o.rc, 1, "{}", input);
        assert!(o.error.unwrap().starts_with("mcpwasm: malformed call_tool input"));
    }
    // Missing or null arguments mean {}.
    let o = run(|| mcpwasm::exports::call_tool(&ts), r#"{"request":{"name":"greet","arguments":null}}"#);
    assert_eq!(o.output["content"][0]["text"].as_str().map(|s| s.ends_with("world!")), Some(true));
}

#[test]
fn base64_vectors() {
    for (raw, enc) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ] {
        assert_eq!(mcpwasm::base64(raw.as_bytes()), enc);
    }
}
