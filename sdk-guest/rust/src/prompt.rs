//! Prompts (ABI.md §5): [`Prompt`] declarations, what a handler sees
//! ([`PromptRequest`]) and what it returns ([`PromptResult`]).
//!
//! ```
//! use mcpwasm::{Prompt, PromptRequest, PromptResult};
//!
//! fn review(r: &PromptRequest) -> Result<PromptResult, String> {
//!     // "code" is declared required: the SDK has checked it is there.
//!     let code = r.arg("code").unwrap_or_default();
//!     let lang = r.arg("language").unwrap_or("code");
//!     Ok(PromptResult::user(format!("Review this {}:\n{}", lang, code)).with_description("Code review"))
//! }
//!
//! let prompts = [Prompt::new("review", "Review some code", review)
//!     .required_argument("code", "The code to review")
//!     .optional_argument("language", "Its language")];
//! let r = mcpwasm::testing::get_prompt(&prompts, "review", r#"{"code":"x := 1","language":"go"}"#).unwrap();
//! assert_eq!(r["messages"][0]["content"]["text"].as_str(), Some("Review this go:\nx := 1"));
//! let e = mcpwasm::testing::get_prompt(&prompts, "review", "{}").unwrap_err();
//! assert_eq!(e, "prompt review: code is required");
//! ```

// Everything here is `#[inline]`, for the reason given at the top of io.rs.

use crate::json::Value;
use crate::result::base64;

/// A prompt handler. `Err(message)` fails the `prompts/get`: the host
/// answers the client with a JSON-RPC error, "not found" if the message
/// contains "not found" (any case), an internal error with the message
/// otherwise.
pub type PromptHandler = fn(&PromptRequest) -> Result<PromptResult, String>;

/// One prompt a plugin declares, listed by `list_prompts` and rendered by
/// `handler` on `get_prompt`.
#[derive(Clone)]
pub struct Prompt {
    /// The declared name, `[A-Za-z0-9_-]{1,64}`. Clients see it with the
    /// plugin's prefix unless the operator turned that off.
    pub name: &'static str,
    /// What the prompt is for; left out of the listing when empty.
    pub description: &'static str,
    /// Renders the prompt on `get_prompt`.
    pub handler: PromptHandler,
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// The arguments, in the order clients should ask for them.
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a [`Prompt`]. Prompt arguments are strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PromptArgument {
    /// The argument's name, the key in `PromptRequest::arguments`.
    pub name: &'static str,
    /// Left out of the listing when empty.
    pub description: &'static str,
    /// `get_prompt` fails before the handler runs when a required argument
    /// is absent or empty.
    pub required: bool,
}

impl Prompt {
    /// A prompt without arguments; add them with [`Prompt::required_argument`]
    /// and [`Prompt::optional_argument`].
    #[inline]
    pub fn new(name: &'static str, description: &'static str, handler: PromptHandler) -> Prompt {
        Prompt { name, description, handler, title: None, arguments: Vec::new() }
    }
    /// A human-readable title.
    #[inline]
    pub fn title(self, title: &'static str) -> Prompt {
        Prompt { title: Some(title), ..self }
    }
    /// Adds an argument the client must supply.
    #[inline]
    pub fn required_argument(mut self, name: &'static str, description: &'static str) -> Prompt {
        self.arguments.push(PromptArgument { name, description, required: true });
        self
    }
    /// Adds an argument the client may leave out.
    #[inline]
    pub fn optional_argument(mut self, name: &'static str, description: &'static str) -> Prompt {
        self.arguments.push(PromptArgument { name, description, required: false });
        self
    }

    /// The MCP `Prompt` object, or why the declaration is wrong.
    #[inline]
    pub fn to_value(&self) -> Result<Value, String> {
        let name = self.name;
        let ok_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if name.is_empty() || name.len() > 64 || !name.chars().all(ok_char) {
            return Err(format!("prompt name {:?} must be 1-64 characters of [A-Za-z0-9_-]", name));
        }
        let mut v = Value::object().with("name", name);
        if let Some(t) = self.title {
            v.insert("title", t);
        }
        if !self.description.is_empty() {
            v.insert("description", self.description);
        }
        if !self.arguments.is_empty() {
            let mut args = Vec::with_capacity(self.arguments.len());
            for (i, a) in self.arguments.iter().enumerate() {
                if a.name.is_empty() {
                    return Err(format!("prompt {}: an argument has an empty name", name));
                }
                if self.arguments[..i].iter().any(|b| b.name == a.name) {
                    return Err(format!("prompt {}: argument {} is declared twice", name, a.name));
                }
                let mut arg = Value::object().with("name", a.name);
                if !a.description.is_empty() {
                    arg.insert("description", a.description);
                }
                arg.insert("required", a.required);
                args.push(arg);
            }
            v.insert("arguments", args);
        }
        Ok(v)
    }
}

/// A `prompts/get` as a handler sees it: the declared prompt name, the
/// client's arguments and the host's context.
#[derive(Clone, Debug)]
pub struct PromptRequest {
    name: String,
    arguments: Value,
    context: Value,
}

impl PromptRequest {
    /// Builds a request by hand (for tests): `arguments` should be an object
    /// of strings.
    #[inline]
    pub fn new(name: &str, arguments: Value) -> PromptRequest {
        PromptRequest { name: name.to_string(), arguments, context: Value::object() }
    }

    /// Reads the `get_prompt` input envelope `{"request": {"name",
    /// "arguments"?}, "context"}`.
    #[inline]
    pub fn from_envelope(env: &Value) -> Result<PromptRequest, String> {
        let req = env.get("request").ok_or("get_prompt input has no \"request\"")?;
        let name = req["name"].as_str().ok_or("get_prompt input has no request.name")?;
        let arguments = match req.get("arguments") {
            None | Some(Value::Null) => Value::object(),
            Some(v @ Value::Object(_)) => v.clone(),
            Some(v) => return Err(format!("request.arguments is a {}, not an object", v.type_name())),
        };
        let context = env.get("context").cloned().unwrap_or_else(Value::object);
        Ok(PromptRequest { name: name.to_string(), arguments, context })
    }

    /// The prompt's declared name.
    #[inline]
    pub fn name(&self) -> &str {
        &self.name
    }
    /// All arguments, as an object (values are strings).
    #[inline]
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }
    /// One argument; `None` if absent, not a string, or empty (clients often
    /// send `""` for a field the user left blank).
    #[inline]
    pub fn arg(&self, name: &str) -> Option<&str> {
        self.arguments[name].as_str().filter(|s| !s.is_empty())
    }
    /// The host's context object (`plugin`, `deadline_ms`, ...).
    #[inline]
    pub fn context(&self) -> &Value {
        &self.context
    }
}

/// Who says a message in a prompt or a sampling request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The human side of the conversation.
    User,
    /// The model's side.
    Assistant,
}

impl Role {
    /// `"user"` or `"assistant"`.
    #[inline]
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// A text content block.
#[inline]
pub(crate) fn text_block(text: String) -> Value {
    Value::object().with("type", "text").with("text", text)
}

/// An image content block; `data` is base64-encoded here.
#[inline]
pub(crate) fn image_block(data: &[u8], mime_type: &str) -> Value {
    Value::object().with("type", "image").with("data", base64(data)).with("mimeType", mime_type)
}

/// A message `{"role", "content"}`.
#[inline]
pub(crate) fn message(role: Role, content: Value) -> Value {
    Value::object().with("role", role.as_str()).with("content", content)
}

/// An MCP `GetPromptResult` under construction: an optional description
/// and the messages, in order.
///
/// ```
/// use mcpwasm::{PromptResult, Role};
/// let r = PromptResult::user("What is in this picture?")
///     .with_image(Role::User, &[0x89, b'P', b'N', b'G'], "image/png")
///     .with_text(Role::Assistant, "Let me look.");
/// assert_eq!(r.to_value()["messages"][1]["content"]["data"].as_str(), Some("iVBORw=="));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptResult {
    description: Option<String>,
    messages: Vec<Value>,
}

/// The message appenders of a builder that keeps its messages in a
/// `messages: Vec<Value>` field ([`PromptResult`], `SamplingRequest`).
macro_rules! message_builders {
    ($t:ty) => {
        /// Appends a text message.
        #[inline]
        pub fn with_text(self, role: $crate::Role, text: impl Into<String>) -> $t {
            self.with_content(role, $crate::prompt::text_block(text.into()))
        }
        /// Appends an image message; `data` is the raw image, base64-encoded here.
        #[inline]
        pub fn with_image(self, role: $crate::Role, data: &[u8], mime_type: &str) -> $t {
            self.with_content(role, $crate::prompt::image_block(data, mime_type))
        }
        /// Appends a message with any MCP content block (audio, resource, ...).
        #[inline]
        pub fn with_content(mut self, role: $crate::Role, block: $crate::Value) -> $t {
            self.messages.push($crate::prompt::message(role, block));
            self
        }
    };
}
pub(crate) use message_builders;

impl PromptResult {
    /// A result with no messages yet.
    #[inline]
    pub fn new() -> PromptResult {
        PromptResult::default()
    }
    /// A result with one `user` text message.
    #[inline]
    pub fn user(text: impl Into<String>) -> PromptResult {
        PromptResult::new().with_text(Role::User, text)
    }
    /// Sets the result's description.
    #[inline]
    pub fn with_description(mut self, description: impl Into<String>) -> PromptResult {
        self.description = Some(description.into());
        self
    }
    message_builders!(PromptResult);
    /// The messages so far, as JSON.
    #[inline]
    pub fn messages(&self) -> &[Value] {
        &self.messages
    }
    /// The `GetPromptResult` JSON object.
    #[inline]
    pub fn to_value(&self) -> Value {
        let mut v = Value::object();
        if let Some(d) = &self.description {
            v.insert("description", d.as_str());
        }
        v.insert("messages", Value::Array(self.messages.clone()));
        v
    }
}

/// Renders prompt `name`: checks the declared required arguments, then runs
/// the handler.
#[inline]
pub(crate) fn render(prompts: &[Prompt], request: &PromptRequest) -> Result<PromptResult, String> {
    let p = match prompts.iter().find(|p| p.name == request.name()) {
        Some(p) => p,
        None => return Err(format!("prompt not found: {}", request.name())),
    };
    for a in p.arguments.iter().filter(|a| a.required) {
        if request.arg(a.name).is_none() {
            return Err(format!("prompt {}: {} is required", p.name, a.name));
        }
    }
    (p.handler)(request)
}
