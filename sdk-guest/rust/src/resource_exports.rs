//! The bodies of the exports [`crate::resources!`] defines. Return codes
//! follow the Extism convention: 0 for success, 1 after `error_set`.
//!
//! Like `resource.rs`, everything here is `#[inline]` and talks to the
//! kernel through `crate::io`, so plugins without resources keep their exact
//! bytes (see the top of io.rs).

use crate::exports_common::{answer, list};
use crate::json::Value;
use crate::resource::{route, Resource, ResourceTemplate};

#[inline]
pub fn list_resources(resources: &[Resource]) -> i32 {
    list(resources, "resources", "resource", |r| r.uri, Resource::to_value)
}

#[inline]
pub fn list_resource_templates(templates: &[ResourceTemplate]) -> i32 {
    list(templates, "resourceTemplates", "resource template", |t| t.uri_template, ResourceTemplate::to_value)
}

/// A failed read is `error_set` and 1: the host turns it into a JSON-RPC
/// error ("not found" in the message means resource-not-found).
#[inline]
pub fn read_resource(resources: &[Resource], templates: &[ResourceTemplate]) -> i32 {
    let parse = |env: &Value| match env["request"]["uri"].as_str() {
        Some(u) => Ok((u.to_string(), env.get("context").cloned().unwrap_or_else(Value::object))),
        None => Err("no request.uri".to_string()),
    };
    answer("read_resource", parse, |(uri, context)| route(resources, templates, &uri, context).map(|r| r.to_value()))
}
