//! What the exports of resources, prompts and completion share: listing
//! declarations, and answering a request. Return codes follow the Extism
//! convention: 0 for success, 1 after `error_set`.
//!
//! Like the exports themselves, everything here is `#[inline]` and talks to
//! the kernel through `crate::io`, for the reason given at the top of io.rs.

use crate::io::{input, output, set_error};
use crate::json::{self, Value};

#[inline]
pub fn fail(message: &str) -> i32 {
    set_error(message);
    1
}

/// Outputs `{key: [declaration, ...]}`, or fails naming the first
/// declaration that is wrong or whose `id` was declared before (`what` is
/// its kind: "prompt", "resource template").
#[inline]
pub fn list<T>(
    items: &[T],
    key: &str,
    what: &str,
    id: impl Fn(&T) -> &str,
    to_value: impl Fn(&T) -> Result<Value, String>,
) -> i32 {
    let mut list = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if items[..i].iter().any(|u| id(u) == id(item)) {
            return fail(&format!("{} {} is declared twice", what, id(item)));
        }
        match to_value(item) {
            Ok(v) => list.push(v),
            Err(e) => return fail(&e),
        }
    }
    output(Value::object().with(key, list).to_json().as_bytes());
    0
}

/// Runs one request export: parses the input envelope with `parse`
/// (failing with "mcpwasm: malformed <export> input: ..."), then outputs
/// the JSON of what `answer` returns, or fails with its error.
#[inline]
pub fn answer<R>(
    export: &str,
    parse: impl FnOnce(&Value) -> Result<R, String>,
    answer: impl FnOnce(R) -> Result<Value, String>,
) -> i32 {
    let request = match json::parse_bytes(&input()).map_err(|e| e.to_string()).and_then(|v| parse(&v)) {
        Ok(r) => r,
        Err(e) => return fail(&format!("mcpwasm: malformed {} input: {}", export, e)),
    };
    match answer(request) {
        Ok(v) => {
            output(v.to_json().as_bytes());
            0
        }
        Err(e) => fail(&e),
    }
}
