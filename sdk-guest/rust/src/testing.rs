//! Runs a plugin's exports natively, for `cargo test` on the build machine.
//! Not available on wasm.
//!
//! ```
//! use mcpwasm::{Call, Tool, ToolResult};
//! fn echo(c: &Call) -> Result<ToolResult, String> { Ok(ToolResult::text(c.string("s")?)) }
//! let tools = [Tool::new("echo", "", r#"{"type":"object"}"#, echo)];
//! let r = mcpwasm::testing::call_tool(&tools, "echo", r#"{"s":"hi"}"#);
//! assert_eq!(r["content"][0]["text"].as_str(), Some("hi"));
//! let r = mcpwasm::testing::call_tool(&tools, "echo", "{}");
//! assert_eq!(r["isError"].as_bool(), Some(true));
//! ```

use crate::json::{self, Value};
use crate::kernel::imp::{Mock, MOCK};
use crate::{exports, Completer, Prompt, Resource, ResourceTemplate, Tool};

/// One host-function call the guest made: its name and JSON payload.
#[derive(Clone, Debug, PartialEq)]
pub struct HostCall {
    /// The host function's name, e.g. `"notify_progress"`.
    pub function: &'static str,
    /// Its JSON payload; `Value::Null` for functions that take none.
    pub payload: Value,
}

/// What one export call produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The export's return code: 0 for success.
    pub rc: i32,
    /// The output it set, parsed (`Value::Null` if none or not JSON).
    pub output: Value,
    /// The message it passed to `error_set`, if any.
    pub error: Option<String>,
    /// Host functions it called (notifications and requests), in order.
    pub host_calls: Vec<HostCall>,
}

/// Sets a config value seen by [`crate::config`] in later calls on this thread.
pub fn set_config(key: &str, value: &str) {
    MOCK.with(|m| m.borrow_mut().config.push((key.to_string(), value.to_string())));
}

/// Calls an export body with `input` and returns what it produced.
pub fn run(export: impl FnOnce() -> i32, input: &str) -> Outcome {
    MOCK.with(|m| {
        let config = std::mem::take(&mut m.borrow_mut().config);
        let answers = std::mem::take(&mut m.borrow_mut().answers);
        *m.borrow_mut() = Mock { input: input.as_bytes().to_vec(), config, answers, ..Mock::default() };
    });
    let rc = export();
    MOCK.with(|m| {
        let mut m = m.borrow_mut();
        let output = m.output.take().and_then(|o| json::parse_bytes(&o).ok()).unwrap_or(Value::Null);
        let host_calls = m
            .host_calls
            .drain(..)
            .map(|(f, p)| HostCall { function: f, payload: json::parse_bytes(&p).unwrap_or(Value::Null) })
            .collect();
        Outcome { rc, output, error: m.error.take(), host_calls }
    })
}

/// Runs `list_tools` and returns the `ListToolsResult`, or the error it set.
pub fn list_tools(tools: &[Tool]) -> Result<Value, String> {
    listed(run(|| exports::list_tools(tools), "{}"))
}

/// Runs `call_tool` for `name` with `arguments` (JSON text) as the host
/// would, and returns the `CallToolResult`. Panics if the export failed.
pub fn call_tool(tools: &[Tool], name: &str, arguments: &str) -> Value {
    call_tool_full(tools, name, arguments).output
}

/// Like [`call_tool`] but returns the whole [`Outcome`], notifications included.
pub fn call_tool_full(tools: &[Tool], name: &str, arguments: &str) -> Outcome {
    call_tool_with(tools, name, arguments, Value::object())
}

/// Like [`call_tool_full`], with extra `context` members (such as `mounts`:
/// `[{"path": "/data", "read_only": true}]`) merged into the host's context.
pub fn call_tool_with(tools: &[Tool], name: &str, arguments: &str, context: Value) -> Outcome {
    let args = json::parse(arguments).unwrap_or_else(|e| panic!("arguments are not JSON: {}", e));
    let input = Value::object()
        .with("request", Value::object().with("name", name).with("arguments", args))
        .with("context", merge(Value::object().with("plugin", "test").with("tool", name), context));
    let o = run(|| exports::call_tool(tools), &input.to_json());
    assert_eq!(o.rc, 0, "call_tool failed: {:?}", o.error);
    o
}

fn merge(mut base: Value, extra: Value) -> Value {
    if let Value::Object(pairs) = extra {
        for (k, v) in pairs {
            base.insert(&k, v);
        }
    }
    base
}

fn listed(o: Outcome) -> Result<Value, String> {
    match o.rc {
        0 => Ok(o.output),
        _ => Err(o.error.unwrap_or_default()),
    }
}

/// Runs `list_resources` and returns the `ListResourcesResult`, or the error it set.
pub fn list_resources(resources: &[Resource]) -> Result<Value, String> {
    listed(run(|| crate::resource_exports::list_resources(resources), r#"{"request":{},"context":{}}"#))
}

/// Runs `list_skills` and returns its output, or the error it set.
pub fn list_skills(skills: &[crate::Skill]) -> Result<Value, String> {
    listed(run(|| crate::__list_skills(skills), r#"{"request":{},"context":{}}"#))
}

/// Runs `list_resource_templates` and returns the `ListResourceTemplatesResult`, or the error it set.
pub fn list_resource_templates(templates: &[ResourceTemplate]) -> Result<Value, String> {
    listed(run(|| crate::resource_exports::list_resource_templates(templates), r#"{"request":{},"context":{}}"#))
}

/// Runs `read_resource` for `uri` and returns the `ReadResourceResult`, or
/// the message the read failed with.
pub fn read_resource(resources: &[Resource], templates: &[ResourceTemplate], uri: &str) -> Result<Value, String> {
    read_resource_with(resources, templates, uri, Value::object())
}

/// Like [`read_resource`], with extra `context` members such as `mounts`.
pub fn read_resource_with(
    resources: &[Resource],
    templates: &[ResourceTemplate],
    uri: &str,
    context: Value,
) -> Result<Value, String> {
    let input = Value::object()
        .with("request", Value::object().with("uri", uri))
        .with("context", merge(Value::object().with("plugin", "test"), context));
    listed(run(|| crate::resource_exports::read_resource(resources, templates), &input.to_json()))
}

/// Sets what the client answers to host function `function`
/// (`"create_message"`, `"create_elicitation"` or `"list_roots"`) in later
/// calls on this thread: an MCP result, or `{"error": {"message": ...}}`
/// (see [`answer_error`]). Until one is set, these functions fail as they do
/// on a host with no client. The requests are recorded in
/// [`Outcome::host_calls`].
pub fn answer(function: &str, result: Value) {
    MOCK.with(|m| m.borrow_mut().answers.push((function.to_string(), result.to_json().into_bytes())));
}

/// Makes host function `function` fail with `message` in later calls on
/// this thread, as when the client lacks the capability.
pub fn answer_error(function: &str, message: &str) {
    answer(function, Value::object().with("error", Value::object().with("message", message)));
}

/// Runs `list_prompts` and returns the `ListPromptsResult`, or the error it set.
pub fn list_prompts(prompts: &[Prompt]) -> Result<Value, String> {
    listed(run(|| crate::prompt_exports::list_prompts(prompts), r#"{"request":{},"context":{}}"#))
}

/// Runs `get_prompt` for `name` with `arguments` (a JSON object of strings)
/// as the host would, and returns the `GetPromptResult`, or the message the
/// get failed with.
pub fn get_prompt(prompts: &[Prompt], name: &str, arguments: &str) -> Result<Value, String> {
    get_prompt_with(prompts, name, arguments, Value::object())
}

/// Like [`get_prompt`], with extra `context` members.
pub fn get_prompt_with(prompts: &[Prompt], name: &str, arguments: &str, context: Value) -> Result<Value, String> {
    let args = json::parse(arguments).unwrap_or_else(|e| panic!("arguments are not JSON: {}", e));
    let input = Value::object()
        .with("request", Value::object().with("name", name).with("arguments", args))
        .with("context", merge(Value::object().with("plugin", "test"), context));
    listed(run(|| crate::prompt_exports::get_prompt(prompts), &input.to_json()))
}

/// Runs `complete` with `params`, the MCP `CompleteRequest` params as JSON
/// text (`{"ref": {...}, "argument": {"name", "value"}, "context"?}`), and
/// returns the `CompleteResult`, or the message it failed with.
pub fn complete(completers: &[Completer], params: &str) -> Result<Value, String> {
    let params = json::parse(params).unwrap_or_else(|e| panic!("params are not JSON: {}", e));
    let input = Value::object().with("request", params).with("context", Value::object().with("plugin", "test"));
    listed(run(|| crate::prompt_exports::complete(completers), &input.to_json()))
}
