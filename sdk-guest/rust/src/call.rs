//! [`Call`]: one `tools/call` request as a handler sees it.

use crate::json::Value;

/// A tool call: the declared tool name, the client's arguments, the request's
/// `_meta` and the host's context (ABI.md §2).
///
/// The host has already checked `arguments` against the tool's inputSchema,
/// so the accessors below mostly fail only for optional-but-mistyped values
/// or when a tool is called outside mcpwasm. Their `Err` strings name the
/// argument and are meant to be returned with `?`.
#[derive(Clone, Debug)]
pub struct Call {
    name: String,
    arguments: Value,
    meta: Value,
    context: Value,
}

impl Call {
    /// Builds a call by hand (for tests): `arguments` should be an object.
    pub fn new(name: &str, arguments: Value) -> Call {
        Call { name: name.to_string(), arguments, meta: Value::Null, context: Value::object() }
    }

    /// Reads the `call_tool` input envelope `{"request": {...}, "context": {...}}`.
    pub fn from_envelope(env: &Value) -> Result<Call, String> {
        let req = env.get("request").ok_or("call_tool input has no \"request\"")?;
        let name = req["name"].as_str().ok_or("call_tool input has no request.name")?;
        let arguments = match req.get("arguments") {
            None | Some(Value::Null) => Value::object(),
            Some(v @ Value::Object(_)) => v.clone(),
            Some(v) => return Err(format!("request.arguments is a {}, not an object", v.type_name())),
        };
        Ok(Call {
            name: name.to_string(),
            arguments,
            meta: req["_meta"].clone(),
            context: env.get("context").cloned().unwrap_or_else(Value::object),
        })
    }

    /// The tool's declared name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// All arguments, as an object.
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }
    /// One argument; `None` if absent or `null`.
    pub fn arg(&self, key: &str) -> Option<&Value> {
        self.arguments.get(key).filter(|v| !v.is_null())
    }
    /// The request's `_meta` (`Value::Null` if none).
    pub fn meta(&self) -> &Value {
        &self.meta
    }
    /// The host's context object: `plugin`, `tool`, `id`, `deadline_ms`, `mounts`, ...
    pub fn context(&self) -> &Value {
        &self.context
    }
    /// The plugin's configured name.
    pub fn plugin(&self) -> &str {
        self.context["plugin"].as_str().unwrap_or("")
    }
    /// Milliseconds left before the host stops this call, if it said.
    pub fn deadline_ms(&self) -> Option<i64> {
        self.context["deadline_ms"].as_i64()
    }

    fn required<'a, T>(&'a self, key: &str, kind: &str, f: impl Fn(&'a Value) -> Option<T>) -> Result<T, String> {
        match self.arg(key) {
            None => Err(format!("missing required argument \"{}\" ({})", key, kind)),
            Some(v) => f(v).ok_or_else(|| format!("argument \"{}\" must be {}, got {}", key, kind, v.type_name())),
        }
    }

    fn optional<'a, T>(
        &'a self,
        key: &str,
        kind: &str,
        f: impl Fn(&'a Value) -> Option<T>,
    ) -> Result<Option<T>, String> {
        match self.arg(key) {
            None => Ok(None),
            Some(_) => self.required(key, kind, f).map(Some),
        }
    }

    /// A required string argument.
    pub fn string(&self, key: &str) -> Result<&str, String> {
        self.required(key, "a string", Value::as_str)
    }
    /// A required number argument.
    pub fn number(&self, key: &str) -> Result<f64, String> {
        self.required(key, "a number", Value::as_f64)
    }
    /// A required integer argument (`3` or `3.0`).
    pub fn integer(&self, key: &str) -> Result<i64, String> {
        self.required(key, "an integer", Value::as_i64)
    }
    /// A required boolean argument.
    pub fn boolean(&self, key: &str) -> Result<bool, String> {
        self.required(key, "a boolean", Value::as_bool)
    }
    /// An optional string argument: `Ok(None)` if absent, `Err` if mistyped.
    pub fn opt_string(&self, key: &str) -> Result<Option<&str>, String> {
        self.optional(key, "a string", Value::as_str)
    }
    /// An optional number argument.
    pub fn opt_number(&self, key: &str) -> Result<Option<f64>, String> {
        self.optional(key, "a number", Value::as_f64)
    }
    /// An optional integer argument.
    pub fn opt_integer(&self, key: &str) -> Result<Option<i64>, String> {
        self.optional(key, "an integer", Value::as_i64)
    }
    /// An optional boolean argument.
    pub fn opt_boolean(&self, key: &str) -> Result<Option<bool>, String> {
        self.optional(key, "a boolean", Value::as_bool)
    }
    // `#[inline]` here and on `mounts_of`: see the top of resource.rs.
    /// The folders this call may use, from `context.mounts` (ABI.md §2).
    /// Empty when the operator granted none, or the client's roots exclude them.
    #[inline]
    pub fn mounts(&self) -> Vec<Mount> {
        mounts_of(&self.context)
    }
}

/// A folder the host mounted for this call, at the same absolute path as on
/// the host (`context.mounts`, ABI.md §2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// The folder's absolute path, the same in the guest as on the host.
    pub path: String,
    /// Whether the guest may only read it.
    pub read_only: bool,
}

/// The mounts listed in a context object; entries without a path are skipped.
#[inline]
pub(crate) fn mounts_of(context: &Value) -> Vec<Mount> {
    let list = match context["mounts"].as_array() {
        Some(l) => l,
        None => return Vec::new(),
    };
    list.iter()
        .filter_map(|m| {
            let path = m["path"].as_str()?.to_string();
            Some(Mount { path, read_only: m["read_only"].as_bool().unwrap_or(true) })
        })
        .collect()
}
