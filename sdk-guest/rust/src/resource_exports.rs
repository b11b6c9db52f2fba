//! The bodies of the exports [`crate::resources!`] defines. Return codes
//! follow the Extism convention: 0 for success, 1 after `error_set`.
//!
//! Like `resource.rs`, everything here is `#[inline]` and talks to the
//! kernel through `crate::io`, so plugins without resources keep their exact
//! bytes (see the top of io.rs).

use crate::io::{input, output, set_error};
use crate::json::{self, Value};
use crate::resource::{route, Resource, ResourceTemplate};

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
