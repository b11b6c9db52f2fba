//! The bodies of the exports [`crate::resources!`] defines. Return codes
//! follow the Extism convention: 0 for success, 1 after `error_set`.
//!
//! Like `resource.rs`, everything here is `#[inline]` and reaches the rest of
//! the crate only through its public API, so plugins without resources keep
//! their exact bytes.

use crate::json::{self, Value};
use crate::resource::{route, Resource, ResourceTemplate};
use io::{input, output, set_error};

#[inline]
fn fail(message: &str) -> i32 {
    set_error(message);
    1
}

#[inline]
pub fn list_resources(resources: &[Resource]) -> i32 {
    let mut list = Vec::with_capacity(resources.len());
    for (i, r) in resources.iter().enumerate() {
        if resources[..i].iter().any(|u| u.uri == r.uri) {
            return fail(&format!("resource {} is declared twice", r.uri));
        }
        match r.to_value() {
            Ok(v) => list.push(v),
            Err(e) => return fail(&e),
        }
    }
    output(Value::object().with("resources", list).to_json().as_bytes());
    0
}

#[inline]
pub fn list_resource_templates(templates: &[ResourceTemplate]) -> i32 {
    let mut list = Vec::with_capacity(templates.len());
    for (i, t) in templates.iter().enumerate() {
        if templates[..i].iter().any(|u| u.uri_template == t.uri_template) {
            return fail(&format!("resource template {} is declared twice", t.uri_template));
        }
        match t.to_value() {
            Ok(v) => list.push(v),
            Err(e) => return fail(&e),
        }
    }
    output(Value::object().with("resourceTemplates", list).to_json().as_bytes());
    0
}

/// A failed read is `error_set` and 1: the host turns it into a JSON-RPC
/// error ("not found" in the message means resource-not-found).
#[inline]
pub fn read_resource(resources: &[Resource], templates: &[ResourceTemplate]) -> i32 {
    let input = input();
    let env = match json::parse_bytes(&input) {
        Ok(v) => v,
        Err(e) => return fail(&format!("mcpwasm: malformed read_resource input: {}", e)),
    };
    let uri = match env["request"]["uri"].as_str() {
        Some(u) => u.to_string(),
        None => return fail("mcpwasm: malformed read_resource input: no request.uri"),
    };
    let context = env.get("context").cloned().unwrap_or_else(Value::object);
    match route(resources, templates, &uri, context) {
        Ok(r) => {
            output(r.to_value().to_json().as_bytes());
            0
        }
        Err(e) => fail(&e),
    }
}

/// The call's input and output, and `error_set`. On wasm these talk to the
/// Extism kernel directly rather than through `crate::kernel`, so that
/// resources leave the code generated for tools untouched (see the top of
/// this file). A panic here has no SDK hook: Rust's own message on stderr
/// still lets the host classify it as a panic.
#[cfg(target_arch = "wasm32")]
mod io {
    #[link(wasm_import_module = "extism:host/env")]
    extern "C" {
        fn input_length() -> u64;
        fn input_load_u8(offs: u64) -> u8;
        fn input_load_u64(offs: u64) -> u64;
        fn alloc(len: u64) -> u64;
        fn store_u8(offs: u64, v: u8);
        fn store_u64(offs: u64, v: u64);
        fn output_set(offs: u64, len: u64);
        fn error_set(offs: u64);
    }

    /// The input, 8 bytes per kernel call, then the tail byte by byte.
    #[inline]
    pub fn input() -> Vec<u8> {
        let n = unsafe { input_length() } as usize;
        let mut v = Vec::with_capacity(n);
        while v.len() + 8 <= n {
            v.extend_from_slice(&unsafe { input_load_u64(v.len() as u64) }.to_le_bytes());
        }
        while v.len() < n {
            v.push(unsafe { input_load_u8(v.len() as u64) });
        }
        v
    }

    /// Copies `data` into a new kernel block, likewise.
    #[inline]
    fn to_kernel(data: &[u8]) -> u64 {
        let offs = unsafe { alloc(data.len() as u64) };
        if offs == 0 && !data.is_empty() {
            panic!("mcpwasm: the Extism kernel could not allocate {} bytes", data.len());
        }
        let mut chunks = data.chunks_exact(8);
        let mut at = offs;
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            unsafe { store_u64(at, u64::from_le_bytes(w)) };
            at += 8;
        }
        for &b in chunks.remainder() {
            unsafe { store_u8(at, b) };
            at += 1;
        }
        offs
    }

    #[inline]
    pub fn output(data: &[u8]) {
        unsafe { output_set(to_kernel(data), data.len() as u64) }
    }

    #[inline]
    pub fn set_error(message: &str) {
        unsafe { error_set(to_kernel(message.as_bytes())) }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod io {
    pub(super) use crate::kernel::{input, output, set_error};
}
