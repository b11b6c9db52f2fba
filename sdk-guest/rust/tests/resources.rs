// The plugin! exports are named like the testing helpers, so call those through `t::`.
use mcpwasm::testing as t;
use mcpwasm::{Call, Mount, ReadRequest, ReadResult, Resource, ResourceTemplate, Tool, ToolResult, Value};

fn index(r: &ReadRequest) -> Result<ReadResult, String> {
    Ok(ReadResult::text(r.uri(), "text/plain", "index").with_blob(r.uri(), "", b"foo"))
}

fn echo(r: &ReadRequest) -> Result<ReadResult, String> {
    let vars = format!("{:?} {:?} {}", r.var("id"), r.var("path"), r.mounts().len());
    Ok(ReadResult::text(r.uri(), "", vars))
}

fn mounts(c: &Call) -> Result<ToolResult, String> {
    Ok(ToolResult::text(format!("{:?}", c.mounts())))
}

// Both macros, as a plugin would use them.
mcpwasm::plugin! {
    tools: [Tool::new("mounts", "", r#"{"type":"object"}"#, mounts)],
}

mcpwasm::resources! {
    resources: [Resource::new("notes://index", "index", index).mime_type("text/plain").title("Index")],
    templates: [
        ResourceTemplate::new("notes://{id}", "note", echo).description("one note"),
        ResourceTemplate::new("file:///{+path}", "file", echo),
    ],
}

#[test]
fn lists() {
    let v = t::list_resources(&mcpwasm_resources()).unwrap();
    assert_eq!(
        v.to_json(),
        r#"{"resources":[{"uri":"notes://index","name":"index","title":"Index","mimeType":"text/plain"}]}"#
    );
    let v = t::list_resource_templates(&mcpwasm_resource_templates()).unwrap();
    assert_eq!(
        v["resourceTemplates"][0].to_json(),
        r#"{"uriTemplate":"notes://{id}","name":"note","description":"one note"}"#
    );
    assert_eq!(v["resourceTemplates"][1]["uriTemplate"].as_str(), Some("file:///{+path}"));
}

#[test]
fn rejects_bad_declarations() {
    let e = t::list_resources(&[Resource::new("nouri", "x", index)]).unwrap_err();
    assert!(e.contains("absolute URI"), "{}", e);
    let e = t::list_resources(&[Resource::new("a:b", "x", index), Resource::new("a:b", "y", index)]).unwrap_err();
    assert!(e.contains("declared twice"), "{}", e);
    for bad in ["x://{a", "x://a}", "x://{}", "x://{a b}"] {
        let e = t::list_resource_templates(&[ResourceTemplate::new(bad, "x", echo)]).unwrap_err();
        assert!(e.starts_with("resource template"), "{}: {}", bad, e);
    }
}

#[test]
fn routes_reads() {
    let (r, t) = (mcpwasm_resources(), mcpwasm_resource_templates());
    let v = t::read_resource(&r, &t, "notes://index").unwrap();
    assert_eq!(v["contents"][0]["text"].as_str(), Some("index"));
    assert_eq!(v["contents"][1].to_json(), r#"{"uri":"notes://index","blob":"Zm9v"}"#);
    let v = t::read_resource(&r, &t, "notes://a%20b").unwrap();
    assert_eq!(v["contents"][0]["text"].as_str(), Some(r#"Some("a%20b") None 0"#));
    let ctx = Value::object().with("mounts", vec![Value::object().with("path", "/d").with("read_only", false)]);
    let v = t::read_resource_with(&r, &t, "file:///d/x/y.txt", ctx).unwrap();
    assert_eq!(v["contents"][0]["text"].as_str(), Some(r#"None Some("d/x/y.txt") 1"#));
    // {id} does not match a '/', and nothing matches another scheme.
    for uri in ["notes://a/b", "other://x"] {
        assert_eq!(t::read_resource(&r, &t, uri).unwrap_err(), format!("resource not found: {}", uri));
    }
}

#[test]
fn template_matching() {
    let m = |t: &'static str, uri: &str| ResourceTemplate::new(t, "t", echo).matches(uri);
    assert_eq!(m("a://{x}/b/{y}", "a://1/b/2"), Some(vec![("x".into(), "1".into()), ("y".into(), "2".into())]));
    assert_eq!(m("a://{+p}.txt", "a://d/e.f.txt"), Some(vec![("p".into(), "d/e.f".into())]));
    assert_eq!(m("a://x{#f}", "a://x#frag/1"), Some(vec![("f".into(), "frag/1".into())]));
    assert_eq!(m("a://x{#f}", "a://xfrag"), None);
    assert!(m("a://{/p}", "a:///q/r").is_some());
    assert_eq!(m("a://{x}", "a://é"), None);
    assert_eq!(mcpwasm::percent_decode("a%20b%C3%A9").as_deref(), Some("a bé"));
    assert_eq!(mcpwasm::percent_decode("a%2"), None);
    assert_eq!(mcpwasm::percent_decode("%ff"), None);
}

#[test]
fn mounts_from_context() {
    let ctx =
        mcpwasm::json::parse(r#"{"mounts":[{"path":"/a","read_only":true},{"path":"/b","read_only":false},{"x":1}]}"#)
            .unwrap();
    let o = t::call_tool_with(&mcpwasm_tools(), "mounts", "{}", ctx);
    let want = vec![Mount { path: "/a".into(), read_only: true }, Mount { path: "/b".into(), read_only: false }];
    assert_eq!(o.output["content"][0]["text"].as_str(), Some(format!("{:?}", want).as_str()));
    let o = t::call_tool_with(&mcpwasm_tools(), "mounts", "{}", Value::object());
    assert_eq!(o.output["content"][0]["text"].as_str(), Some("[]"));
}

#[test]
fn malformed_read_input_fails() {
    let (r, t) = (mcpwasm_resources(), mcpwasm_resource_templates());
    for input in ["", "{}", r#"{"request":{"uri":1}}"#] {
        let o = mcpwasm::testing::run(|| mcpwasm::resource_exports::read_resource(&r, &t), input);
        assert_eq!(o.rc, 1);
        assert!(o.error.unwrap().starts_with("mcpwasm: malformed read_resource input"));
    }
}
