//! The bodies of the exports [`crate::prompts!`] and [`crate::completions!`]
//! define. Return codes follow the Extism convention: 0 for success, 1 after
//! `error_set`.
//!
//! Everything here is `#[inline]` and talks to the kernel through
//! `crate::io`, for the reason given at the top of io.rs.

use crate::completion::{route, CompleteRequest, Completer};
use crate::exports_common::{answer, list};
use crate::prompt::{render, Prompt, PromptRequest};

/// `ListPromptsResult`; a bad declaration fails the load, naming the prompt.
#[inline]
pub fn list_prompts(prompts: &[Prompt]) -> i32 {
    list(prompts, "prompts", "prompt", |p| p.name, Prompt::to_value)
}

/// `{"request": {"name", "arguments"?}, "context"}` -> `GetPromptResult`.
/// A failure is `error_set` and 1: the host turns it into a JSON-RPC error
/// ("not found" in the message means not-found).
#[inline]
pub fn get_prompt(prompts: &[Prompt]) -> i32 {
    answer("get_prompt", PromptRequest::from_envelope, |r| render(prompts, &r).map(|r| r.to_value()))
}

/// `{"request": CompleteRequest params, "context"}` -> `CompleteResult`.
/// Nothing declared for the reference and argument: no values.
#[inline]
pub fn complete(completers: &[Completer]) -> i32 {
    answer("complete", CompleteRequest::from_envelope, |r| route(completers, &r).map(|c| c.to_value()))
}
