//! [`ToolResult`]: what a handler returns, serialized as an MCP `CallToolResult`.

use crate::json::Value;

/// An MCP `CallToolResult` under construction.
///
/// ```
/// use mcpwasm::{ToolResult, Value};
/// let r = ToolResult::text("42 km").with_structured(Value::object().with("km", 42));
/// assert_eq!(r.to_value()["structuredContent"]["km"].as_i64(), Some(42));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolResult {
    content: Vec<Value>,
    structured: Option<Value>,
    is_error: bool,
    meta: Option<Value>,
}

impl ToolResult {
    /// A result with one text content block.
    pub fn text(text: impl Into<String>) -> ToolResult {
        ToolResult::default().with_text(text)
    }

    /// A structured result: `value` as `structuredContent`, and the same JSON
    /// as a text block for clients that only read text (as MCP recommends).
    /// MCP 2025-06-18 wants an object here; 2026-07-28 allows any value.
    pub fn json(value: Value) -> ToolResult {
        ToolResult::text(value.to_json()).with_structured(value)
    }

    /// A result with one image block; `data` is the raw image (PNG, ...),
    /// base64-encoded here.
    pub fn image(data: &[u8], mime_type: &str) -> ToolResult {
        ToolResult::default().with_image(data, mime_type)
    }

    /// An error the model can read and act on (`isError: true`, ABI.md §4).
    pub fn error(message: impl Into<String>) -> ToolResult {
        let mut r = ToolResult::text(message);
        r.is_error = true;
        r
    }

    /// Appends a text block.
    pub fn with_text(mut self, text: impl Into<String>) -> ToolResult {
        self.content.push(Value::object().with("type", "text").with("text", text.into()));
        self
    }

    /// Appends an image block.
    pub fn with_image(mut self, data: &[u8], mime_type: &str) -> ToolResult {
        self.content.push(Value::object().with("type", "image").with("data", base64(data)).with("mimeType", mime_type));
        self
    }

    /// Appends any MCP content block (audio, resource_link, ...) as JSON.
    pub fn with_content(mut self, block: Value) -> ToolResult {
        self.content.push(block);
        self
    }

    /// Sets `structuredContent`.
    pub fn with_structured(mut self, value: Value) -> ToolResult {
        self.structured = Some(value);
        self
    }

    /// Sets the result's `_meta` object.
    pub fn with_meta(mut self, meta: Value) -> ToolResult {
        self.meta = Some(meta);
        self
    }

    /// Marks the result as an error or not.
    pub fn with_error(mut self, is_error: bool) -> ToolResult {
        self.is_error = is_error;
        self
    }

    /// Whether the result is marked `isError`.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The `CallToolResult` JSON object.
    pub fn to_value(&self) -> Value {
        let mut v = Value::object().with("content", Value::Array(self.content.clone()));
        if let Some(s) = &self.structured {
            v.insert("structuredContent", s.clone());
        }
        if self.is_error {
            v.insert("isError", true);
        }
        if let Some(m) = &self.meta {
            v.insert("_meta", m.clone());
        }
        v
    }
}

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity((data.len() + 2) / 3 * 4);
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        out.push(A[(n >> 18) as usize & 63] as char);
        out.push(A[(n >> 12) as usize & 63] as char);
        out.push(if c.len() > 1 { A[(n >> 6) as usize & 63] as char } else { '=' });
        out.push(if c.len() > 2 { A[n as usize & 63] as char } else { '=' });
    }
    out
}
