//! The bodies of the exports [`crate::prompts!`] and [`crate::completions!`]
//! define. Return codes follow the Extism convention: 0 for success, 1 after
//! `error_set`.
//!
//! Everything here is `#[inline]` and talks to the kernel through
//! `crate::io`, for the reason given at the top of io.rs.

use crate::completion::{route, CompleteRequest, Completer};
use crate::io::{input, output, set_error};
use crate::json::{self, Value};
use crate::prompt::{render, Prompt, PromptRequest};

#[inline]
fn fail(message: &str) -> i32 {
    set_error(message);
    1
}

/// `ListPromptsResult`; a bad declaration fails the load, naming the prompt.
#[inline]
pub fn list_prompts(prompts: &[Prompt]) -> i32 {
    let mut list = Vec::with_capacity(prompts.len());
    for (i, p) in prompts.iter().enumerate() {
        if prompts[..i].iter().any(|q| q.name == p.name) {
            return fail(&format!("prompt {} is declared twice", p.name));
        }
        match p.to_value() {
            Ok(v) => list.push(v),
            Err(e) => return fail(&e),
        }
    }
    output(Value::object().with("prompts", list).to_json().as_bytes());
    0
}

/// `{"request": {"name", "arguments"?}, "context"}` -> `GetPromptResult`.
/// A failure is `error_set` and 1: the host turns it into a JSON-RPC error
/// ("not found" in the message means not-found).
#[inline]
pub fn get_prompt(prompts: &[Prompt]) -> i32 {
    let request = json::parse_bytes(&input()).map_err(|e| e.to_string()).and_then(|v| PromptRequest::from_envelope(&v));
    let request = match request {
        Ok(r) => r,
        Err(e) => return fail(&format!("mcpwasm: malformed get_prompt input: {}", e)),
    };
    match render(prompts, &request) {
        Ok(r) => {
            output(r.to_value().to_json().as_bytes());
            0
        }
        Err(e) => fail(&e),
    }
}

/// `{"request": CompleteRequest params, "context"}` -> `CompleteResult`.
/// Nothing declared for the reference and argument: no values.
#[inline]
pub fn complete(completers: &[Completer]) -> i32 {
    let request =
        json::parse_bytes(&input()).map_err(|e| e.to_string()).and_then(|v| CompleteRequest::from_envelope(&v));
    let request = match request {
        Ok(r) => r,
        Err(e) => return fail(&format!("mcpwasm: malformed complete input: {}", e)),
    };
    match route(completers, &request) {
        Ok(c) => {
            output(c.to_value().to_json().as_bytes());
            0
        }
        Err(e) => fail(&e),
    }
}
