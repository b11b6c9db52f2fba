//! A small JSON layer: a [`Value`] type, a strict RFC 8259 parser with a
//! nesting limit, and a compact serializer.
//!
//! Integers that fit an `i64` parse as [`Value::Int`] and keep every digit;
//! other numbers parse as [`Value::Float`]. Objects keep their keys in order.
//! If a key repeats, [`Value::get`] returns the last one, as most parsers do.

use std::fmt;
use std::ops::Index;

mod write;
pub use write::write_string;

/// How deeply arrays and objects may nest in [`parse`]'s input.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// An integer written without fraction or exponent that fits an `i64`.
    Int(i64),
    /// Any other number. Never NaN or infinite when produced by the parser.
    Float(f64),
    String(String),
    Array(Vec<Value>),
    /// Key/value pairs in document order.
    Object(Vec<(String, Value)>),
}

static NULL: Value = Value::Null;

impl Value {
    /// An empty object, to fill with [`Value::with`] or [`Value::insert`].
    pub fn object() -> Value {
        Value::Object(Vec::new())
    }

    /// An empty array, to fill with [`Value::push`].
    pub fn array() -> Value {
        Value::Array(Vec::new())
    }

    /// Returns the object with `key` set to `v`: `Value::object().with("a", 1)`.
    pub fn with(mut self, key: &str, v: impl Into<Value>) -> Value {
        self.insert(key, v);
        self
    }

    /// Sets `key` on an object, replacing an existing entry. Does nothing on
    /// other kinds of value.
    pub fn insert(&mut self, key: &str, v: impl Into<Value>) {
        if let Value::Object(pairs) = self {
            let v = v.into();
            match pairs.iter_mut().rev().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = v,
                None => pairs.push((key.to_string(), v)),
            }
        }
    }

    /// Appends to an array. Does nothing on other kinds of value.
    pub fn push(&mut self, v: impl Into<Value>) {
        if let Value::Array(items) = self {
            items.push(v.into());
        }
    }

    /// The member `key` of an object (the last one if it repeats).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(pairs) => pairs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// Any number as `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(n) => Some(*n as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }
    /// An integer, or a float with no fractional part that fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(n) => Some(*n),
            Value::Float(f) if f.fract() == 0.0 && *f >= -9.223372036854776e18 && *f < 9.223372036854776e18 => {
                Some(*f as i64)
            }
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_object(&self) -> Option<&Vec<(String, Value)>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The JSON name of this value's type ("null", "boolean", "number", ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// Compact JSON text. Non-finite floats become `null`.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        write::write_value(self, &mut out);
        out
    }
}

/// `v["key"]` and `v[0]` give `Value::Null` when absent, like serde_json.
impl Index<&str> for Value {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

impl Index<usize> for Value {
    type Output = Value;
    fn index(&self, i: usize) -> &Value {
        match self {
            Value::Array(a) => a.get(i).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

macro_rules! from {
    ($($t:ty => |$x:ident| $e:expr),* $(,)?) => {
        $(impl From<$t> for Value {
            fn from($x: $t) -> Value {
                $e
            }
        })*
    };
}

from! {
    bool => |b| Value::Bool(b),
    i64 => |n| Value::Int(n),
    i32 => |n| Value::Int(n as i64),
    u32 => |n| Value::Int(n as i64),
    usize => |n| i64::try_from(n).map_or(Value::Float(n as f64), Value::Int),
    f64 => |f| Value::Float(f),
    &str => |s| Value::String(s.to_string()),
    String => |s| Value::String(s),
    Vec<Value> => |a| Value::Array(a),
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Value {
        o.map_or(Value::Null, Into::into)
    }
}

/// A parse error with the byte offset where it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub message: String,
    pub offset: usize,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for Error {}

/// Parses one JSON document, allowing [`DEFAULT_MAX_DEPTH`] levels of nesting.
pub fn parse(text: &str) -> Result<Value, Error> {
    parse_with_depth(text, DEFAULT_MAX_DEPTH)
}

/// Parses UTF-8 bytes; invalid UTF-8 is an error.
pub fn parse_bytes(bytes: &[u8]) -> Result<Value, Error> {
    match std::str::from_utf8(bytes) {
        Ok(s) => parse(s),
        Err(e) => Err(Error { message: "invalid UTF-8".into(), offset: e.valid_up_to() }),
    }
}

/// Parses one JSON document whose arrays and objects nest at most `max_depth` deep.
pub fn parse_with_depth(text: &str, max_depth: usize) -> Result<Value, Error> {
    let mut p = Parser { s: text, b: text.as_bytes(), i: 0, depth: 0, max_depth };
    let v = p.value()?;
    p.ws();
    if p.i < p.b.len() {
        return p.fail("unexpected text after the JSON value");
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
    max_depth: usize,
}

impl<'a> Parser<'a> {
    fn fail<T>(&self, message: &str) -> Result<T, Error> {
        Err(Error { message: message.to_string(), offset: self.i })
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Result<Value, Error> {
        self.ws();
        match self.peek() {
            None => self.fail("unexpected end of input"),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.fail("expected a JSON value"),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, Error> {
        if self.b[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            self.fail("expected a JSON value")
        }
    }

    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(Error { message: format!("nesting deeper than {} levels", self.max_depth), offset: self.i });
        }
        self.i += 1; // the opening bracket
        Ok(())
    }

    fn array(&mut self) -> Result<Value, Error> {
        self.enter()?;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => break,
                None => return self.fail("unexpected end of input in an array"),
                _ => return self.fail("expected ',' or ']'"),
            }
        }
        self.i += 1;
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    fn object(&mut self) -> Result<Value, Error> {
        self.enter()?;
        let mut pairs = Vec::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Value::Object(pairs));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return self.fail("expected a string key");
            }
            let key = self.string()?;
            self.ws();
            if self.peek() != Some(b':') {
                return self.fail("expected ':'");
            }
            self.i += 1;
            let v = self.value()?;
            pairs.push((key, v));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => break,
                None => return self.fail("unexpected end of input in an object"),
                _ => return self.fail("expected ',' or '}'"),
            }
        }
        self.i += 1;
        self.depth -= 1;
        Ok(Value::Object(pairs))
    }

    fn string(&mut self) -> Result<String, Error> {
        self.i += 1; // opening quote
        let mut out = String::new();
        let mut run = self.i; // start of the current unescaped run
        loop {
            match self.peek() {
                None => return self.fail("unterminated string"),
                Some(b'"') => {
                    out.push_str(&self.s[run..self.i]);
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    out.push_str(&self.s[run..self.i]);
                    self.i += 1;
                    self.escape(&mut out)?;
                    run = self.i;
                }
                Some(c) if c < 0x20 => return self.fail("control character in string (escape it)"),
                Some(_) => self.i += 1, // multi-byte UTF-8 sequences are copied whole with the run
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), Error> {
        let c = match self.peek() {
            Some(c) => c,
            None => return self.fail("unterminated string"),
        };
        self.i += 1;
        match c {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let start = self.i - 2;
                let hi = self.hex4()?;
                let cp = if (0xD800..0xDC00).contains(&hi) {
                    if !self.b[self.i..].starts_with(b"\\u") {
                        return Err(Error { message: "unpaired surrogate in \\u escape".into(), offset: start });
                    }
                    self.i += 2;
                    let lo = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return Err(Error { message: "unpaired surrogate in \\u escape".into(), offset: start });
                    }
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else if (0xDC00..0xE000).contains(&hi) {
                    return Err(Error { message: "unpaired surrogate in \\u escape".into(), offset: start });
                } else {
                    hi
                };
                // Every value built above is a valid scalar value.
                out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
            }
            _ => {
                self.i -= 1;
                return self.fail("invalid escape in string");
            }
        }
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return self.fail("expected 4 hex digits after \\u"),
            };
            v = v * 16 + d as u32;
            self.i += 1;
        }
        Ok(v)
    }

    fn digits(&mut self) -> Result<(), Error> {
        if !matches!(self.peek(), Some(b'0'..=b'9')) {
            return self.fail("expected a digit");
        }
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        Ok(())
    }

    fn number(&mut self) -> Result<Value, Error> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits()?,
            _ => return self.fail("expected a digit"),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.i += 1;
            self.digits()?;
            integer = false;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            self.digits()?;
            integer = false;
        }
        let text = &self.s[start..self.i];
        if integer {
            if let Ok(n) = text.parse::<i64>() {
                return Ok(Value::Int(n));
            }
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => Err(Error { message: "number out of range".into(), offset: start }),
        }
    }
}
