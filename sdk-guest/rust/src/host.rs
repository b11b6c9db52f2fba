//! Talking to the host during a call: progress, client log messages and the
//! operator's config (ABI.md §3 and §5).

use crate::json::Value;
use crate::kernel::{self, HostFn};

/// Sends `notifications/progress` for the current request. The host adds the
/// client's progress token; if the client sent none this does nothing.
/// `progress` should grow with every call.
pub fn progress(progress: f64, total: Option<f64>, message: Option<&str>) {
    let mut v = Value::object().with("progress", progress);
    if let Some(t) = total {
        v.insert("total", t);
    }
    if let Some(m) = message {
        v.insert("message", m);
    }
    kernel::call_host(HostFn::NotifyProgress, v.to_json().as_bytes());
}

/// MCP log levels (RFC 5424 severities).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Detailed debugging information.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A component failed.
    Critical,
    /// Action is needed now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl Level {
    /// The MCP name of the level (`"info"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Error => "error",
            Level::Critical => "critical",
            Level::Alert => "alert",
            Level::Emergency => "emergency",
        }
    }
}

/// Sends `notifications/message` to the client (if its log level allows).
/// `data` may be any JSON: a string, or an object with details.
pub fn log(level: Level, data: impl Into<Value>) {
    log_as(level, None, data)
}

/// Like [`log`], naming the `logger`.
pub fn log_as(level: Level, logger: Option<&str>, data: impl Into<Value>) {
    let mut v = Value::object().with("level", level.as_str());
    if let Some(l) = logger {
        v.insert("logger", l);
    }
    v.insert("data", data);
    kernel::call_host(HostFn::NotifyLoggingMessage, v.to_json().as_bytes());
}

/// A value from the plugin's `config` table in the operator's TOML file.
pub fn config(key: &str) -> Option<String> {
    kernel::config(key).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Writes a line to the guest's stderr, which the host keeps in its own log
/// at debug level. Never shown to the client.
pub fn debug(message: &str) {
    eprintln!("{}", message);
}
