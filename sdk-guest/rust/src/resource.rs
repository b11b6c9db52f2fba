//! Resources and resource templates (ABI.md §5): [`Resource`],
//! [`ResourceTemplate`], what a read handler sees ([`ReadRequest`]) and what
//! it returns ([`ReadResult`]).
//!
//! ```
//! use mcpwasm::{ReadRequest, ReadResult, ResourceTemplate};
//!
//! fn note(r: &ReadRequest) -> Result<ReadResult, String> {
//!     match r.var("id") {
//!         Some("1") => Ok(ReadResult::text(r.uri(), "text/plain", "first note")),
//!         _ => Err(format!("not found: {}", r.uri())), // "not found" -> MCP resource-not-found
//!     }
//! }
//! let t = [ResourceTemplate::new("notes://{id}", "note", note)];
//! let r = mcpwasm::testing::read_resource(&[], &t, "notes://1").unwrap();
//! assert_eq!(r["contents"][0]["text"].as_str(), Some("first note"));
//! assert!(mcpwasm::testing::read_resource(&[], &t, "notes://2").unwrap_err().contains("not found"));
//! ```

// Every function here and in resource_exports.rs is `#[inline]` and reaches
// the rest of the crate only through its public API (and the new, also
// inline, `call::mounts_of`). It is then compiled only into plugins that use
// it, and leaves the SDK's own code, inlining decisions included, as it was:
// plugins without resources build to the same bytes as before (the built-in
// plugins are checked against their committed builds).

use crate::call::{mounts_of, Mount};
use crate::json::Value;
use crate::result::base64;

/// A resource read handler. `Err(message)` fails the read: the host answers
/// the client with a JSON-RPC error, "resource not found" if the message
/// contains "not found" (any case), an internal error with the message
/// otherwise.
pub type ResourceHandler = fn(&ReadRequest) -> Result<ReadResult, String>;

/// One concrete resource, listed by `list_resources` and read by `handler`.
#[derive(Clone, Copy)]
pub struct Resource {
    /// The resource's absolute URI, exposed to clients as declared.
    pub uri: &'static str,
    /// A short name for it.
    pub name: &'static str,
    /// Reads it.
    pub handler: ResourceHandler,
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// What it is, for the model.
    pub description: Option<&'static str>,
    /// The MIME type of its contents.
    pub mime_type: Option<&'static str>,
}

/// One URI template (RFC 6570), listed by `list_resource_templates`. A read
/// of a URI that matches it goes to `handler`.
#[derive(Clone, Copy)]
pub struct ResourceTemplate {
    /// The RFC 6570 URI template, exposed to clients as declared.
    pub uri_template: &'static str,
    /// A short name for what it reads.
    pub name: &'static str,
    /// Reads a URI that matches it.
    pub handler: ResourceHandler,
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// What it reads, for the model.
    pub description: Option<&'static str>,
    /// The MIME type of its contents, if always the same.
    pub mime_type: Option<&'static str>,
}

macro_rules! builders {
    ($t:ident) => {
        impl $t {
            /// A human-readable title.
            pub const fn title(self, title: &'static str) -> $t {
                $t { title: Some(title), ..self }
            }
            /// What it is, for the model.
            pub const fn description(self, description: &'static str) -> $t {
                $t { description: Some(description), ..self }
            }
            /// The MIME type of its contents, if it is always the same.
            pub const fn mime_type(self, mime_type: &'static str) -> $t {
                $t { mime_type: Some(mime_type), ..self }
            }
            #[inline]
            fn finish(&self, mut v: Value) -> Value {
                v.insert("name", self.name);
                if let Some(t) = self.title {
                    v.insert("title", t);
                }
                if let Some(d) = self.description {
                    v.insert("description", d);
                }
                if let Some(m) = self.mime_type {
                    v.insert("mimeType", m);
                }
                v
            }
        }
    };
}
builders!(Resource);
builders!(ResourceTemplate);

impl Resource {
    /// Declares a resource; add the optional parts with the builders.
    pub const fn new(uri: &'static str, name: &'static str, handler: ResourceHandler) -> Resource {
        Resource { uri, name, handler, title: None, description: None, mime_type: None }
    }

    /// The MCP `Resource` object, or why the declaration is wrong.
    #[inline]
    pub fn to_value(&self) -> Result<Value, String> {
        if self.uri.is_empty() || !self.uri.contains(':') {
            return Err(format!("resource {:?}: the uri must be an absolute URI (scheme:...)", self.uri));
        }
        if self.name.is_empty() {
            return Err(format!("resource {}: the name must not be empty", self.uri));
        }
        Ok(self.finish(Value::object().with("uri", self.uri)))
    }
}

impl ResourceTemplate {
    /// Declares a URI template; add the optional parts with the builders.
    pub const fn new(uri_template: &'static str, name: &'static str, handler: ResourceHandler) -> ResourceTemplate {
        ResourceTemplate { uri_template, name, handler, title: None, description: None, mime_type: None }
    }

    /// The MCP `ResourceTemplate` object, or why the declaration is wrong.
    #[inline]
    pub fn to_value(&self) -> Result<Value, String> {
        let t = self.uri_template;
        parts(t).map_err(|e| format!("resource template {:?}: {}", t, e))?;
        if self.name.is_empty() {
            return Err(format!("resource template {}: the name must not be empty", t));
        }
        Ok(self.finish(Value::object().with("uriTemplate", t)))
    }

    /// The variables of `uri` if it matches this template, else `None`.
    ///
    /// `{var}` matches unreserved characters and %-escapes (no `/`), `{+var}`
    /// any text, `{#var}` a `#` and any text. Other expressions (`{/var}`,
    /// `{?x,y}`, ...) match any text and bind nothing; a handler can parse
    /// [`ReadRequest::uri`] itself. Values are returned as they appear in the
    /// URI, not %-decoded (see [`percent_decode`]).
    #[inline]
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let ps = parts(self.uri_template).ok()?;
        let mut vars = Vec::new();
        if match_parts(&ps, uri, &mut vars) {
            Some(vars)
        } else {
            None
        }
    }
}

enum Part<'a> {
    Lit(&'a str),
    /// (operator or ' ', variable names)
    Expr(char, Vec<&'a str>),
}

#[inline]
fn parts(t: &str) -> Result<Vec<Part<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = t;
    while !rest.is_empty() {
        match rest.find('{') {
            Some(0) => {
                let end = rest.find('}').ok_or("unclosed '{'")?;
                let body = &rest[1..end];
                let (op, names) = match body.chars().next() {
                    Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (c, &body[1..]),
                    _ => (' ', body),
                };
                let names: Vec<&str> = names.split(',').map(|n| n.trim_end_matches('*')).collect();
                let ok = |n: &&str| {
                    let n = n.split(':').next().unwrap_or("");
                    !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%')
                };
                if !names.iter().all(ok) {
                    return Err(format!("bad expression {{{}}}", body));
                }
                out.push(Part::Expr(op, names));
                rest = &rest[end + 1..];
            }
            Some(i) => {
                out.push(Part::Lit(&rest[..i]));
                rest = &rest[i..];
            }
            None => {
                if rest.contains('}') {
                    return Err("unmatched '}'".into());
                }
                out.push(Part::Lit(rest));
                rest = "";
            }
        }
        if let Some(Part::Lit(l)) = out.last() {
            if l.contains('}') {
                return Err("unmatched '}'".into());
            }
        }
    }
    Ok(out)
}

#[inline]
fn simple_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'%')
}

#[inline]
fn match_parts<'a>(ps: &[Part<'a>], s: &str, vars: &mut Vec<(String, String)>) -> bool {
    let (first, rest) = match ps.split_first() {
        None => return s.is_empty(),
        Some(x) => x,
    };
    match first {
        Part::Lit(l) => s.starts_with(l) && match_parts(rest, &s[l.len()..], vars),
        Part::Expr(op, names) => {
            let (s, op) = match op {
                '#' if s.starts_with('#') => (&s[1..], '+'),
                '#' => return false,
                _ => (s, *op),
            };
            // Try every split point, shortest value first.
            for end in 0..=s.len() {
                if !s.is_char_boundary(end) {
                    continue;
                }
                let value = &s[..end];
                if op == ' ' && end > 0 && !simple_char(s.as_bytes()[end - 1]) {
                    return false;
                }
                let mark = vars.len();
                if matches!(op, ' ' | '+') && names.len() == 1 {
                    vars.push((names[0].split(':').next().unwrap_or("").to_string(), value.to_string()));
                }
                if match_parts(rest, &s[end..], vars) {
                    return true;
                }
                vars.truncate(mark);
            }
            false
        }
    }
}

/// Decodes `%XX` escapes; `None` if an escape is malformed or the result is
/// not UTF-8.
#[inline]
pub fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// One `resources/read` as a handler sees it.
#[derive(Clone, Debug)]
pub struct ReadRequest {
    uri: String,
    vars: Vec<(String, String)>,
    context: Value,
}

impl ReadRequest {
    /// A request by hand (for tests).
    #[inline]
    pub fn new(uri: &str, vars: Vec<(String, String)>, context: Value) -> ReadRequest {
        ReadRequest { uri: uri.to_string(), vars, context }
    }
    /// The URI the client asked for, verbatim.
    #[inline]
    pub fn uri(&self) -> &str {
        &self.uri
    }
    /// A template variable as it appears in the URI (still %-encoded).
    #[inline]
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
    /// The host's context object (`plugin`, `mounts`, ...).
    #[inline]
    pub fn context(&self) -> &Value {
        &self.context
    }
    /// The folders this request may use, from `context.mounts`.
    #[inline]
    pub fn mounts(&self) -> Vec<Mount> {
        mounts_of(&self.context)
    }
}

/// An MCP `ReadResourceResult`: one or more contents, text or base64 blob.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadResult {
    contents: Vec<Value>,
}

#[inline]
fn content(uri: &str, mime_type: &str) -> Value {
    let v = Value::object().with("uri", uri);
    if mime_type.is_empty() {
        v
    } else {
        v.with("mimeType", mime_type)
    }
}

impl ReadResult {
    /// Text contents; an empty `mime_type` is left out.
    #[inline]
    pub fn text(uri: &str, mime_type: &str, text: impl Into<String>) -> ReadResult {
        ReadResult::default().with_text(uri, mime_type, text)
    }
    /// Binary contents, base64-encoded here.
    #[inline]
    pub fn blob(uri: &str, mime_type: &str, data: &[u8]) -> ReadResult {
        ReadResult::default().with_blob(uri, mime_type, data)
    }
    /// Appends text contents.
    #[inline]
    pub fn with_text(mut self, uri: &str, mime_type: &str, text: impl Into<String>) -> ReadResult {
        self.contents.push(content(uri, mime_type).with("text", text.into()));
        self
    }
    /// Appends binary contents, base64-encoded here.
    #[inline]
    pub fn with_blob(mut self, uri: &str, mime_type: &str, data: &[u8]) -> ReadResult {
        self.contents.push(content(uri, mime_type).with("blob", base64(data)));
        self
    }
    /// The `ReadResourceResult` JSON object.
    #[inline]
    pub fn to_value(&self) -> Value {
        Value::object().with("contents", Value::Array(self.contents.clone()))
    }
}

/// Finds the handler for `uri`: a resource declared with exactly that URI,
/// else the first template that matches.
#[inline]
pub(crate) fn route(
    resources: &[Resource],
    templates: &[ResourceTemplate],
    uri: &str,
    context: Value,
) -> Result<ReadResult, String> {
    if let Some(r) = resources.iter().find(|r| r.uri == uri) {
        return (r.handler)(&ReadRequest::new(uri, Vec::new(), context));
    }
    for t in templates {
        if let Some(vars) = t.matches(uri) {
            return (t.handler)(&ReadRequest::new(uri, vars, context));
        }
    }
    Err(format!("resource not found: {}", uri))
}
