//! Asking the client and telling it about changes (ABI.md §6): sampling
//! ([`create_message`]), elicitation ([`create_elicitation`]), roots
//! ([`list_roots`]), the resource and list-changed notifications, and the
//! end of a URL-mode elicitation ([`notify_url_elicitation_completed`]).
//!
//! A request the host cannot make (the client lacks the capability, the
//! server runs stateless, the deadline passed) is an `Err` with the host's
//! message; in a tool handler, `?` turns it into an `isError` result.
//!
//! ```
//! use mcpwasm::{Call, Role, SamplingRequest, Tool, ToolResult};
//!
//! fn summarize(call: &Call) -> Result<ToolResult, String> {
//!     let req = SamplingRequest::new(200).with_text(Role::User, format!("Summarize: {}", call.string("text")?));
//!     let answer = mcpwasm::create_message(&req).map_err(|e| format!("sampling unavailable: {}", e))?;
//!     Ok(ToolResult::text(answer.text().unwrap_or_default()))
//! }
//!
//! let tools = [Tool::new("summarize", "", r#"{"type":"object"}"#, summarize)];
//! // Natively, tests choose what the client answers.
//! mcpwasm::testing::answer("create_message", mcpwasm::json::parse(
//!     r#"{"role":"assistant","content":{"type":"text","text":"Short."},"model":"m"}"#).unwrap());
//! let r = mcpwasm::testing::call_tool(&tools, "summarize", r#"{"text":"a long story"}"#);
//! assert_eq!(r["content"][0]["text"].as_str(), Some("Short."));
//! mcpwasm::testing::answer_error("create_message", "the client does not support sampling");
//! let r = mcpwasm::testing::call_tool(&tools, "summarize", r#"{"text":"a long story"}"#);
//! assert_eq!(r["content"][0]["text"].as_str(), Some("sampling unavailable: the client does not support sampling"));
//! ```
//!
//! Under protocol 2026-07-28 the host may answer these requests by running
//! the whole call again (ABI.md §6, *replay*): make the same requests in the
//! same order for the same arguments, and cause no side effects before the
//! last one.
//!
//! Each function is its own import of the module: a plugin imports only the
//! host functions it calls.

// Everything here is `#[inline]`, for the reason given at the top of io.rs.

use crate::json::{self, Value};
use crate::prompt::message_builders;

#[cfg(target_arch = "wasm32")]
mod sys {
    #[link(wasm_import_module = "extism:host/user")]
    extern "C" {
        pub fn create_message(handle: u64) -> u64;
        pub fn create_elicitation(handle: u64) -> u64;
        pub fn list_roots() -> u64;
        pub fn notify_resource_updated(handle: u64);
        pub fn notify_tool_list_changed();
        pub fn notify_resource_list_changed();
        pub fn notify_prompt_list_changed();
        pub fn notify_url_elicitation_completed(handle: u64);
    }
}

/// Calls host function `$f`: with a JSON payload (`$f(payload)`) or without
/// (`$f()`). A request returns the bytes of the host's answer.
macro_rules! host {
    (request $f:ident($payload:expr)) => {{
        #[cfg(target_arch = "wasm32")]
        let answer = crate::io::take_kernel(unsafe { sys::$f(crate::io::to_kernel($payload)) });
        #[cfg(not(target_arch = "wasm32"))]
        let answer = crate::io::host_request(stringify!($f), $payload);
        answer
    }};
    (request $f:ident()) => {{
        #[cfg(target_arch = "wasm32")]
        let answer = crate::io::take_kernel(unsafe { sys::$f() });
        #[cfg(not(target_arch = "wasm32"))]
        let answer = crate::io::host_request(stringify!($f), &[]);
        answer
    }};
    (notify $f:ident($payload:expr)) => {{
        #[cfg(target_arch = "wasm32")]
        unsafe {
            sys::$f(crate::io::to_kernel($payload))
        };
        #[cfg(not(target_arch = "wasm32"))]
        crate::io::host_notify(stringify!($f), $payload);
    }};
    (notify $f:ident()) => {{
        #[cfg(target_arch = "wasm32")]
        unsafe {
            sys::$f()
        };
        #[cfg(not(target_arch = "wasm32"))]
        crate::io::host_notify(stringify!($f), &[]);
    }};
}

/// The host's answer as JSON, or its `{"error": {"message"}}` as `Err`.
#[inline]
fn answer(function: &str, bytes: Vec<u8>) -> Result<Value, String> {
    if bytes.is_empty() {
        return Err(format!("{}: the host returned no answer", function));
    }
    let v = json::parse_bytes(&bytes).map_err(|e| format!("{}: the host's answer is not JSON: {}", function, e))?;
    match v.get("error") {
        None | Some(Value::Null) => Ok(v),
        Some(e) => Err(e["message"].as_str().map_or_else(|| e.to_json(), str::to_string)),
    }
}

/// The params of a sampling request (MCP `CreateMessageRequest`): the
/// conversation so far and a token budget.
///
/// ```
/// use mcpwasm::{Role, SamplingRequest};
/// let r = SamplingRequest::new(16).with_text(Role::User, "ping").system_prompt("Be brief.");
/// assert_eq!(r.to_value().to_json(),
///     r#"{"messages":[{"role":"user","content":{"type":"text","text":"ping"}}],"maxTokens":16,"systemPrompt":"Be brief."}"#);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SamplingRequest {
    messages: Vec<Value>,
    max_tokens: i64,
    extra: Value,
}

impl SamplingRequest {
    /// A request for at most `max_tokens` tokens, with no messages yet.
    #[inline]
    pub fn new(max_tokens: i64) -> SamplingRequest {
        SamplingRequest { messages: Vec::new(), max_tokens, extra: Value::object() }
    }
    message_builders!(SamplingRequest);
    /// Sets `systemPrompt`.
    #[inline]
    pub fn system_prompt(self, prompt: &str) -> SamplingRequest {
        self.with("systemPrompt", prompt)
    }
    /// Sets `temperature`.
    #[inline]
    pub fn temperature(self, temperature: f64) -> SamplingRequest {
        self.with("temperature", temperature)
    }
    /// Sets any other field (`modelPreferences`, `stopSequences`,
    /// `includeContext`, `metadata`, ...).
    #[inline]
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> SamplingRequest {
        self.extra.insert(key, value);
        self
    }
    /// The `CreateMessageRequest` params as JSON.
    #[inline]
    pub fn to_value(&self) -> Value {
        let mut v = Value::object().with("messages", self.messages.clone()).with("maxTokens", self.max_tokens);
        if let Value::Object(pairs) = &self.extra {
            for (k, x) in pairs {
                v.insert(k, x.clone());
            }
        }
        v
    }
}

/// The client's answer to a sampling request (MCP `CreateMessageResult`).
#[derive(Clone, Debug, PartialEq)]
pub struct SamplingResult(pub Value);

impl SamplingResult {
    /// The text the model wrote: the `content` text block, or the first text
    /// block if `content` is a list. `None` if it wrote no text.
    #[inline]
    pub fn text(&self) -> Option<&str> {
        let c = &self.0["content"];
        let block = match c.as_array() {
            Some(list) => list.iter().find(|b| b["type"].as_str() == Some("text"))?,
            None => c,
        };
        match block["type"].as_str() {
            Some("text") => block["text"].as_str(),
            _ => None,
        }
    }
    /// The content block (or list of blocks) as JSON.
    #[inline]
    pub fn content(&self) -> &Value {
        &self.0["content"]
    }
    /// The model that answered, as the client names it.
    #[inline]
    pub fn model(&self) -> Option<&str> {
        self.0["model"].as_str()
    }
    /// Why the model stopped (`endTurn`, `maxTokens`, ...), if the client said.
    #[inline]
    pub fn stop_reason(&self) -> Option<&str> {
        self.0["stopReason"].as_str()
    }
}

/// Asks the client's model to continue a conversation (`create_message`,
/// MCP sampling). `Err` carries the host's message when it could not ask.
#[inline]
pub fn create_message(request: &SamplingRequest) -> Result<SamplingResult, String> {
    let payload = request.to_value().to_json();
    let bytes = host!(request create_message(payload.as_bytes()));
    answer("create_message", bytes).map(SamplingResult)
}

/// The user's answer to an elicitation (MCP `ElicitResult`).
#[derive(Clone, Debug, PartialEq)]
pub struct Elicitation(pub Value);

impl Elicitation {
    /// `"accept"`, `"decline"` or `"cancel"`.
    #[inline]
    pub fn action(&self) -> &str {
        self.0["action"].as_str().unwrap_or("")
    }
    /// Whether the user accepted (and `content` holds the answer).
    #[inline]
    pub fn accepted(&self) -> bool {
        self.action() == "accept"
    }
    /// The submitted form, an object matching the requested schema;
    /// `Value::Null` if the user declined or cancelled.
    #[inline]
    pub fn content(&self) -> &Value {
        &self.0["content"]
    }
}

/// Asks the user for input through the client (`create_elicitation`):
/// `message` says why, `requested_schema` is the JSON text of a flat object
/// schema of primitive fields (MCP `ElicitRequest`). `Err` carries the
/// host's message when it could not ask, or says the schema is not JSON.
#[inline]
pub fn create_elicitation(message: &str, requested_schema: &str) -> Result<Elicitation, String> {
    let schema = json::parse(requested_schema).map_err(|e| format!("the requested schema is not valid JSON: {}", e))?;
    create_elicitation_with(Value::object().with("message", message).with("requestedSchema", schema))
}

/// Like [`create_elicitation`], with the whole `ElicitRequest` params as
/// JSON (for example a URL-mode elicitation).
#[inline]
pub fn create_elicitation_with(params: Value) -> Result<Elicitation, String> {
    let payload = params.to_json();
    let bytes = host!(request create_elicitation(payload.as_bytes()));
    answer("create_elicitation", bytes).map(Elicitation)
}

/// One of the client's roots: a `file://` URI and an optional name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    /// The root's URI, usually `file:///...`.
    pub uri: String,
    /// A display name, if the client gave one.
    pub name: Option<String>,
}

/// The client's roots (`list_roots`). `Err` carries the host's message when
/// it could not ask (for instance, the client lacks the roots capability).
#[inline]
pub fn list_roots() -> Result<Vec<Root>, String> {
    let bytes = host!(request list_roots());
    let v = answer("list_roots", bytes)?;
    let roots = v["roots"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    Ok(roots
        .iter()
        .filter_map(|r| {
            let uri = r["uri"].as_str()?.to_string();
            Some(Root { uri, name: r["name"].as_str().map(str::to_string) })
        })
        .collect())
}

/// Tells subscribed clients that resource `uri` changed
/// (`notify_resource_updated`).
#[inline]
pub fn notify_resource_updated(uri: &str) {
    let payload = Value::object().with("uri", uri).to_json();
    host!(notify notify_resource_updated(payload.as_bytes()));
}

/// Makes the host read this plugin's tool list again and tell clients
/// (`notify_tool_list_changed`).
#[inline]
pub fn notify_tool_list_changed() {
    host!(notify notify_tool_list_changed());
}

/// Makes the host read this plugin's resource and template lists again and
/// tell clients (`notify_resource_list_changed`).
#[inline]
pub fn notify_resource_list_changed() {
    host!(notify notify_resource_list_changed());
}

/// Makes the host read this plugin's prompt list again and tell clients
/// (`notify_prompt_list_changed`).
#[inline]
pub fn notify_prompt_list_changed() {
    host!(notify notify_prompt_list_changed());
}

/// Tells the client that the URL-mode elicitation `elicitation_id` (one this
/// call started with [`create_elicitation_with`]) is complete
/// (`notify_url_elicitation_completed`, MCP
/// `notifications/elicitation/complete`). The host does nothing in stateless
/// HTTP.
#[inline]
pub fn notify_url_elicitation_completed(elicitation_id: &str) {
    let payload = Value::object().with("elicitationId", elicitation_id).to_json();
    host!(notify notify_url_elicitation_completed(payload.as_bytes()));
}
