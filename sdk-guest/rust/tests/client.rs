// The host functions that ask the client something or notify it, through
// tools as a plugin uses them, against the native stand-in.
use mcpwasm::json::parse;
use mcpwasm::testing::{answer, answer_error, call_tool, call_tool_full, HostCall};
use mcpwasm::{Call, Role, SamplingRequest, Tool, ToolResult, Value};

fn ask(c: &Call) -> Result<ToolResult, String> {
    let req = SamplingRequest::new(16)
        .with_text(Role::User, c.opt_string("q")?.unwrap_or("ping"))
        .with_image(Role::Assistant, b"foo", "image/png")
        .system_prompt("Be brief.")
        .temperature(0.5)
        .with("stopSequences", vec![Value::from("\n")]);
    let r = mcpwasm::create_message(&req).map_err(|e| format!("sampling unavailable: {}", e))?;
    Ok(ToolResult::text(format!("{:?} {:?} {:?}", r.text(), r.model(), r.stop_reason())))
}

fn elicit(c: &Call) -> Result<ToolResult, String> {
    let schema = c.opt_string("schema")?.unwrap_or(r#"{"type":"object","properties":{"name":{"type":"string"}}}"#);
    let e = mcpwasm::create_elicitation("Your name?", schema)?;
    Ok(ToolResult::text(format!("{} {} {}", e.action(), e.accepted(), e.content())))
}

fn elicit_url(_: &Call) -> Result<ToolResult, String> {
    let params = Value::object().with("mode", "url").with("message", "Sign in").with("url", "https://x.test/");
    Ok(ToolResult::text(mcpwasm::create_elicitation_with(params)?.action()))
}

fn roots(_: &Call) -> Result<ToolResult, String> {
    let roots = mcpwasm::list_roots()?;
    Ok(ToolResult::text(format!("{:?}", roots)))
}

fn notify(_: &Call) -> Result<ToolResult, String> {
    mcpwasm::notify_resource_updated("notes://1");
    mcpwasm::notify_tool_list_changed();
    mcpwasm::notify_resource_list_changed();
    mcpwasm::notify_prompt_list_changed();
    mcpwasm::notify_url_elicitation_completed("el-1");
    Ok(ToolResult::text("ok"))
}

fn tools() -> Vec<Tool> {
    let o = r#"{"type":"object"}"#;
    vec![
        Tool::new("ask", "", o, ask),
        Tool::new("elicit", "", o, elicit),
        Tool::new("elicit_url", "", o, elicit_url),
        Tool::new("roots", "", o, roots),
        Tool::new("notify", "", o, notify),
    ]
}

fn text(v: &Value) -> &str {
    v["content"][0]["text"].as_str().unwrap_or("<no text>")
}

fn json(s: &str) -> Value {
    parse(s).unwrap()
}

#[test]
fn sampling() {
    answer(
        "create_message",
        json(r#"{"role":"assistant","content":{"type":"text","text":"pong"},"model":"m","stopReason":"endTurn"}"#),
    );
    let o = call_tool_full(&tools(), "ask", "{}");
    assert_eq!(text(&o.output), r#"Some("pong") Some("m") Some("endTurn")"#);
    assert_eq!(o.host_calls.len(), 1);
    assert_eq!(o.host_calls[0].function, "create_message");
    assert_eq!(
        o.host_calls[0].payload.to_json(),
        concat!(
            r#"{"messages":[{"role":"user","content":{"type":"text","text":"ping"}},"#,
            r#"{"role":"assistant","content":{"type":"image","data":"Zm9v","mimeType":"image/png"}}],"#,
            r#""maxTokens":16,"systemPrompt":"Be brief.","temperature":0.5,"stopSequences":["\n"]}"#
        )
    );
    // A list of content blocks: the first text block; no text at all: None.
    answer("create_message", json(r#"{"content":[{"type":"image","data":""},{"type":"text","text":"two"}]}"#));
    assert_eq!(text(&call_tool(&tools(), "ask", "{}")), "Some(\"two\") None None");
    answer("create_message", json(r#"{"content":{"type":"image","data":"","text":"not text"}}"#));
    assert_eq!(text(&call_tool(&tools(), "ask", "{}")), "None None None");
}

#[test]
fn host_errors_are_errs() {
    // Before any answer is set, the stand-in fails like a host without a client.
    let v = call_tool(&tools(), "ask", "{}");
    assert_eq!(v["isError"].as_bool(), Some(true));
    assert!(text(&v).starts_with("sampling unavailable: no answer for create_message"), "{}", text(&v));
    answer_error("create_message", "the client does not support sampling");
    let v = call_tool(&tools(), "ask", "{}");
    assert_eq!(text(&v), "sampling unavailable: the client does not support sampling");
    // An error without a message is passed on as JSON.
    answer("list_roots", json(r#"{"error":{"code":-1}}"#));
    assert_eq!(text(&call_tool(&tools(), "roots", "{}")), r#"{"code":-1}"#);
    // "error": null is not an error.
    answer("list_roots", json(r#"{"error":null,"roots":[]}"#));
    assert_eq!(text(&call_tool(&tools(), "roots", "{}")), "[]");
    answer_error("create_elicitation", "stateless server");
    let v = call_tool(&tools(), "elicit", "{}");
    assert_eq!((v["isError"].as_bool(), text(&v)), (Some(true), "stateless server"));
}

#[test]
fn elicitation() {
    answer("create_elicitation", json(r#"{"action":"accept","content":{"name":"Ada"}}"#));
    let o = call_tool_full(&tools(), "elicit", "{}");
    assert_eq!(text(&o.output), r#"accept true {"name":"Ada"}"#);
    assert_eq!(
        o.host_calls,
        vec![HostCall {
            function: "create_elicitation",
            payload: json(
                r#"{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}"#
            ),
        }]
    );
    answer("create_elicitation", json(r#"{"action":"decline"}"#));
    assert_eq!(text(&call_tool(&tools(), "elicit", "{}")), "decline false null");
    // A schema that is not JSON never reaches the host.
    let o = call_tool_full(&tools(), "elicit", r#"{"schema":"{nope"}"#);
    assert_eq!(o.output["isError"].as_bool(), Some(true));
    assert!(text(&o.output).starts_with("the requested schema is not valid JSON"), "{}", text(&o.output));
    assert!(o.host_calls.is_empty());
    // Any ElicitRequest params, verbatim.
    answer("create_elicitation", json(r#"{"action":"cancel"}"#));
    let o = call_tool_full(&tools(), "elicit_url", "{}");
    assert_eq!(text(&o.output), "cancel");
    assert_eq!(o.host_calls[0].payload.to_json(), r#"{"mode":"url","message":"Sign in","url":"https://x.test/"}"#);
}

#[test]
fn list_roots() {
    answer(
        "list_roots",
        json(r#"{"roots":[{"uri":"file:///a","name":"A"},{"name":"no uri"},{"uri":"file:///b"}],"_meta":{}}"#),
    );
    let o = call_tool_full(&tools(), "roots", "{}");
    assert_eq!(
        text(&o.output),
        r#"[Root { uri: "file:///a", name: Some("A") }, Root { uri: "file:///b", name: None }]"#
    );
    // list_roots takes no payload.
    assert_eq!(o.host_calls, vec![HostCall { function: "list_roots", payload: Value::Null }]);
}

#[test]
fn notifications() {
    let o = call_tool_full(&tools(), "notify", "{}");
    let calls: Vec<(&str, String)> = o.host_calls.iter().map(|c| (c.function, c.payload.to_json())).collect();
    assert_eq!(
        calls,
        vec![
            ("notify_resource_updated", r#"{"uri":"notes://1"}"#.to_string()),
            ("notify_tool_list_changed", "null".to_string()),
            ("notify_resource_list_changed", "null".to_string()),
            ("notify_prompt_list_changed", "null".to_string()),
            ("notify_url_elicitation_completed", r#"{"elicitationId":"el-1"}"#.to_string()),
        ]
    );
}

#[test]
fn answers_last_and_stay_per_function() {
    answer("list_roots", json(r#"{"roots":[{"uri":"file:///1"}]}"#));
    answer("list_roots", json(r#"{"roots":[{"uri":"file:///2"}]}"#));
    answer_error("create_message", "x");
    for _ in 0..2 {
        assert_eq!(text(&call_tool(&tools(), "roots", "{}")), r#"[Root { uri: "file:///2", name: None }]"#);
    }
}
