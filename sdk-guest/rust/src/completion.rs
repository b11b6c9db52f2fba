//! Argument completion (ABI.md §5, MCP `completion/complete`): which
//! arguments a plugin completes ([`Completer`]), what a handler sees
//! ([`CompleteRequest`]) and what it returns ([`Completion`]).
//!
//! ```
//! use mcpwasm::{CompleteRequest, Completer, Completion};
//!
//! fn language(r: &CompleteRequest) -> Result<Completion, String> {
//!     Ok(Completion::matching(r.value(), ["go", "python", "rust"]))
//! }
//!
//! let c = [Completer::prompt("review", "language", language)];
//! let params = r#"{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"language","value":"r"}}"#;
//! let r = mcpwasm::testing::complete(&c, params).unwrap();
//! assert_eq!(r.to_json(), r#"{"completion":{"values":["rust"]}}"#);
//! // Anything no completer claims completes to nothing.
//! let params = r#"{"ref":{"type":"ref/prompt","name":"other"},"argument":{"name":"x","value":""}}"#;
//! assert_eq!(mcpwasm::testing::complete(&c, params).unwrap().to_json(), r#"{"completion":{"values":[]}}"#);
//! ```

// Everything here is `#[inline]`, for the reason given at the top of io.rs.

use crate::json::Value;

/// A completion handler. `Err(message)` fails the request: the host answers
/// the client with a JSON-RPC error carrying the message. For "no
/// suggestions", return an empty [`Completion`] instead.
pub type CompleteHandler = fn(&CompleteRequest) -> Result<Completion, String>;

/// The most values one completion may carry (MCP's limit).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// Completes one argument of one prompt or resource template.
#[derive(Clone, Copy)]
pub struct Completer {
    /// `"ref/prompt"` or `"ref/resource"`.
    pub ref_type: &'static str,
    /// The prompt's declared name, or the resource's URI or URI template
    /// exactly as declared.
    pub target: &'static str,
    /// The argument (or template variable) it completes.
    pub argument: &'static str,
    /// Computes the suggestions.
    pub handler: CompleteHandler,
}

impl Completer {
    /// Completes `argument` of the prompt declared as `prompt`.
    #[inline]
    pub const fn prompt(prompt: &'static str, argument: &'static str, handler: CompleteHandler) -> Completer {
        Completer { ref_type: "ref/prompt", target: prompt, argument, handler }
    }
    /// Completes variable `argument` of the resource template (or resource)
    /// declared as `uri`, e.g. `Completer::resource("notes://{id}", "id", f)`.
    #[inline]
    pub const fn resource(uri: &'static str, argument: &'static str, handler: CompleteHandler) -> Completer {
        Completer { ref_type: "ref/resource", target: uri, argument, handler }
    }
}

/// A `completion/complete` request: what is being completed, the text typed
/// so far, and the arguments the client has already resolved.
#[derive(Clone, Debug)]
pub struct CompleteRequest {
    ref_type: String,
    target: String,
    argument: String,
    value: String,
    resolved: Value,
    context: Value,
}

impl CompleteRequest {
    /// Reads the `complete` input envelope `{"request": CompleteRequest
    /// params, "context"}`.
    #[inline]
    pub fn from_envelope(env: &Value) -> Result<CompleteRequest, String> {
        let req = env.get("request").ok_or("complete input has no \"request\"")?;
        let r = &req["ref"];
        let ref_type = r["type"].as_str().ok_or("complete input has no request.ref.type")?;
        let target = match ref_type {
            "ref/prompt" => r["name"].as_str().unwrap_or(""),
            _ => r["uri"].as_str().unwrap_or(""),
        };
        let argument = req["argument"]["name"].as_str().ok_or("complete input has no request.argument.name")?;
        Ok(CompleteRequest {
            ref_type: ref_type.to_string(),
            target: target.to_string(),
            argument: argument.to_string(),
            value: req["argument"]["value"].as_str().unwrap_or("").to_string(),
            resolved: req["context"]["arguments"].clone(),
            context: env.get("context").cloned().unwrap_or_else(Value::object),
        })
    }

    /// `"ref/prompt"` or `"ref/resource"`.
    #[inline]
    pub fn ref_type(&self) -> &str {
        &self.ref_type
    }
    /// The prompt's declared name, for a `ref/prompt`.
    #[inline]
    pub fn prompt(&self) -> Option<&str> {
        self.target_of("ref/prompt")
    }
    /// The URI or URI template, for a `ref/resource`.
    #[inline]
    pub fn uri(&self) -> Option<&str> {
        self.target_of("ref/resource")
    }
    /// The reference's target when it is of type `ref_type`.
    #[inline]
    fn target_of(&self, ref_type: &str) -> Option<&str> {
        if self.ref_type == ref_type {
            Some(&self.target)
        } else {
            None
        }
    }
    /// The name of the argument being completed.
    #[inline]
    pub fn argument(&self) -> &str {
        &self.argument
    }
    /// What the user has typed so far (may be empty).
    #[inline]
    pub fn value(&self) -> &str {
        &self.value
    }
    /// Another argument the client has already resolved
    /// (`context.arguments` of the request), e.g. to complete a file name
    /// within a chosen folder.
    #[inline]
    pub fn resolved(&self, name: &str) -> Option<&str> {
        self.resolved[name].as_str()
    }
    /// The host's context object (`plugin`, `deadline_ms`, ...).
    #[inline]
    pub fn context(&self) -> &Value {
        &self.context
    }
}

/// An MCP `CompleteResult` under construction: suggested values, in order.
///
/// ```
/// use mcpwasm::Completion;
/// let c = Completion::matching("t", ["one", "two", "three"]);
/// assert_eq!(c.values(), ["two", "three"]);
/// let many = Completion::new((0..150).map(|i| i.to_string()).collect());
/// assert_eq!(many.to_value()["completion"]["total"].as_i64(), Some(150));
/// assert_eq!(many.to_value()["completion"]["hasMore"].as_bool(), Some(true));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    values: Vec<String>,
    total: Option<usize>,
    has_more: bool,
}

impl Completion {
    /// These values. More than [`MAX_COMPLETION_VALUES`] are cut to that
    /// many when sent, with `hasMore` and `total` set.
    #[inline]
    pub fn new(values: Vec<String>) -> Completion {
        Completion { values, total: None, has_more: false }
    }
    /// The candidates that start with `prefix` (case-sensitive), in order.
    #[inline]
    pub fn matching<I>(prefix: &str, candidates: I) -> Completion
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let values = candidates.into_iter().filter(|c| c.as_ref().starts_with(prefix)).map(|c| c.as_ref().to_string());
        Completion::new(values.collect())
    }
    /// Sets `total`: how many values match in all, when more exist than sent.
    #[inline]
    pub fn with_total(mut self, total: usize) -> Completion {
        self.total = Some(total);
        self
    }
    /// Sets `hasMore`: more values exist than sent.
    #[inline]
    pub fn with_has_more(mut self, has_more: bool) -> Completion {
        self.has_more = has_more;
        self
    }
    /// The values so far.
    #[inline]
    pub fn values(&self) -> &[String] {
        &self.values
    }
    /// The `CompleteResult` JSON object: `{"completion": {"values",
    /// "total"?, "hasMore"?}}`.
    #[inline]
    pub fn to_value(&self) -> Value {
        let n = self.values.len().min(MAX_COMPLETION_VALUES);
        let values: Vec<Value> = self.values[..n].iter().map(|s| Value::from(s.as_str())).collect();
        let mut c = Value::object().with("values", values);
        let cut = self.values.len() > n;
        let total = self.total.or(if cut { Some(self.values.len()) } else { None });
        if let Some(t) = total {
            c.insert("total", t);
        }
        if self.has_more || cut {
            c.insert("hasMore", true);
        }
        Value::object().with("completion", c)
    }
}

/// Runs the first completer declared for the request's reference and
/// argument; none means no values.
#[inline]
pub(crate) fn route(completers: &[Completer], request: &CompleteRequest) -> Result<Completion, String> {
    let found = completers
        .iter()
        .find(|c| c.ref_type == request.ref_type() && c.target == request.target && c.argument == request.argument());
    match found {
        Some(c) => (c.handler)(request),
        None => Ok(Completion::default()),
    }
}
