// Prompts and completion, through the macros as a plugin uses them. The
// exports they define are named like the testing helpers, so call those
// through `t::`.
use mcpwasm::testing as t;
use mcpwasm::{
    Call, CompleteRequest, Completer, Completion, Prompt, PromptRequest, PromptResult, Role, Tool, ToolResult, Value,
};

fn review(r: &PromptRequest) -> Result<PromptResult, String> {
    let lang = r.arg("language").unwrap_or("code");
    Ok(PromptResult::user(format!("Review this {}:\n{}", lang, r.arg("code").unwrap_or("<none>")))
        .with_description("Code review"))
}

fn show(r: &PromptRequest) -> Result<PromptResult, String> {
    if r.arg("fail").is_some() {
        return Err("the prompt failed on purpose".into());
    }
    Ok(PromptResult::new()
        .with_image(Role::User, b"GIF89a", "image/gif")
        .with_text(Role::Assistant, format!("{} {} {}", r.name(), r.context()["plugin"], r.arguments())))
}

fn noop(_: &Call) -> Result<ToolResult, String> {
    Ok(ToolResult::text(""))
}

mcpwasm::plugin! {
    tools: [Tool::new("noop", "", r#"{"type":"object"}"#, noop)],
}

mcpwasm::prompts! {
    prompts: [
        Prompt::new("review", "Review some code", review)
            .title("Review")
            .required_argument("code", "The code")
            .optional_argument("language", ""),
        Prompt::new("show", "", show),
    ],
}

fn languages(r: &CompleteRequest) -> Result<Completion, String> {
    Ok(Completion::matching(r.value(), ["go", "python", "rust", "typescript", "Rust"]))
}

fn echo(r: &CompleteRequest) -> Result<Completion, String> {
    let v =
        format!("{:?} {:?} {} {:?} {}", r.prompt(), r.uri(), r.argument(), r.resolved("dir"), r.context()["plugin"]);
    Ok(Completion::new(vec![v, r.value().to_string()]).with_total(7).with_has_more(true))
}

fn broken(_: &CompleteRequest) -> Result<Completion, String> {
    Err("no completions today".into())
}

mcpwasm::completions! {
    completions: [
        Completer::prompt("review", "language", languages),
        Completer::resource("notes://{dir}/{name}", "name", echo),
        Completer::prompt("notes://{dir}/{name}", "name", broken),
    ],
}

#[test]
fn lists_prompts() {
    let v = t::list_prompts(&mcpwasm_prompts()).unwrap();
    assert_eq!(
        v.to_json(),
        concat!(
            r#"{"prompts":[{"name":"review","title":"Review","description":"Review some code","arguments":["#,
            r#"{"name":"code","description":"The code","required":true},{"name":"language","required":false}]},"#,
            r#"{"name":"show"}]}"#
        )
    );
}

#[test]
fn rejects_bad_prompt_declarations() {
    let long: &'static str = Box::leak("p".repeat(65).into_boxed_str());
    for bad in ["", "a.b", "a b", long] {
        let e = t::list_prompts(&[Prompt::new(bad, "", show)]).unwrap_err();
        assert!(e.contains("[A-Za-z0-9_-]"), "{:?}: {}", bad, e);
    }
    assert!(t::list_prompts(&[Prompt::new(&long[..64], "", show)]).is_ok());
    let e = t::list_prompts(&[Prompt::new("p", "", show), Prompt::new("p", "", review)]).unwrap_err();
    assert_eq!(e, "prompt p is declared twice");
    let e = t::list_prompts(&[Prompt::new("p", "", show).optional_argument("a", "").required_argument("a", "")])
        .unwrap_err();
    assert_eq!(e, "prompt p: argument a is declared twice");
    let e = t::list_prompts(&[Prompt::new("p", "", show).optional_argument("", "")]).unwrap_err();
    assert_eq!(e, "prompt p: an argument has an empty name");
}

#[test]
fn gets_prompts() {
    let p = mcpwasm_prompts();
    let v = t::get_prompt(&p, "review", r#"{"code":"x := 1","language":"go"}"#).unwrap();
    assert_eq!(
        v.to_json(),
        r#"{"description":"Code review","messages":[{"role":"user","content":{"type":"text","text":"Review this go:\nx := 1"}}]}"#
    );
    // An empty optional argument counts as absent.
    let v = t::get_prompt(&p, "review", r#"{"code":"y","language":""}"#).unwrap();
    assert_eq!(v["messages"][0]["content"]["text"].as_str(), Some("Review this code:\ny"));
    // The context reaches the handler; images are base64; roles are kept.
    let ctx = Value::object().with("plugin", "mine");
    let v = t::get_prompt_with(&p, "show", r#"{"k":"v"}"#, ctx).unwrap();
    assert_eq!(v.get("description"), None);
    assert_eq!(
        v["messages"][0].to_json(),
        r#"{"role":"user","content":{"type":"image","data":"R0lGODlh","mimeType":"image/gif"}}"#
    );
    assert_eq!(v["messages"][1]["role"].as_str(), Some("assistant"));
    assert_eq!(v["messages"][1]["content"]["text"].as_str(), Some(r#"show "mine" {"k":"v"}"#));
}

#[test]
fn prompt_failures() {
    let p = mcpwasm_prompts();
    // A required argument absent, null or empty: the handler never runs.
    for args in ["{}", r#"{"code":null}"#, r#"{"code":""}"#, r#"{"language":"go"}"#] {
        assert_eq!(t::get_prompt(&p, "review", args).unwrap_err(), "prompt review: code is required", "{}", args);
    }
    assert_eq!(t::get_prompt(&p, "show", r#"{"fail":"1"}"#).unwrap_err(), "the prompt failed on purpose");
    assert_eq!(t::get_prompt(&p, "nope", "{}").unwrap_err(), "prompt not found: nope");
    for input in ["", "{}", r#"{"request":{}}"#, r#"{"request":{"name":"show","arguments":["x"]}}"#] {
        let o = t::run(|| mcpwasm::prompt_exports::get_prompt(&p), input);
        assert_eq!(o.rc, 1, "{}", input);
        assert!(o.error.unwrap().starts_with("mcpwasm: malformed get_prompt input"));
    }
    // Missing or null arguments mean {}.
    let o = t::run(|| mcpwasm::prompt_exports::get_prompt(&p), r#"{"request":{"name":"show","arguments":null}}"#);
    assert_eq!(o.rc, 0);
    assert_eq!(o.output["messages"][1]["content"]["text"].as_str(), Some("show null {}"));
}

fn complete_arg(reference: &str, argument: &str, value: &str) -> Result<Value, String> {
    let params = format!(r#"{{"ref":{},"argument":{{"name":"{}","value":"{}"}}}}"#, reference, argument, value);
    t::complete(&mcpwasm_completers(), &params)
}

const REVIEW: &str = r#"{"type":"ref/prompt","name":"review"}"#;
const NOTES: &str = r#"{"type":"ref/resource","uri":"notes://{dir}/{name}"}"#;

#[test]
fn completes_prompt_arguments() {
    let values = |v: &str| complete_arg(REVIEW, "language", v).unwrap()["completion"]["values"].to_json();
    assert_eq!(values(""), r#"["go","python","rust","typescript","Rust"]"#);
    assert_eq!(values("r"), r#"["rust"]"#);
    assert_eq!(values("R"), r#"["Rust"]"#);
    assert_eq!(values("py"), r#"["python"]"#);
    assert_eq!(values("zz"), "[]");
    assert_eq!(complete_arg(REVIEW, "language", "t").unwrap().to_json(), r#"{"completion":{"values":["typescript"]}}"#);
}

#[test]
fn routes_completions() {
    let none = r#"{"completion":{"values":[]}}"#;
    // Another argument, another prompt, a concrete URI, an unknown ref type.
    assert_eq!(complete_arg(REVIEW, "code", "x").unwrap().to_json(), none);
    assert_eq!(complete_arg(r#"{"type":"ref/prompt","name":"show"}"#, "language", "").unwrap().to_json(), none);
    assert_eq!(complete_arg(r#"{"type":"ref/resource","uri":"review"}"#, "language", "").unwrap().to_json(), none);
    assert_eq!(complete_arg(r#"{"type":"ref/other","name":"review"}"#, "language", "").unwrap().to_json(), none);
    // The same target string as a prompt reaches the other completer.
    let e = complete_arg(r#"{"type":"ref/prompt","name":"notes://{dir}/{name}"}"#, "name", "").unwrap_err();
    assert_eq!(e, "no completions today");
    // The resource completer sees the ref, the argument, the resolved arguments and the context.
    let params = concat!(
        r#"{"ref":{"type":"ref/resource","uri":"notes://{dir}/{name}"},"argument":{"name":"name","value":"a"},"#,
        r#""context":{"arguments":{"dir":"work"}}}"#
    );
    let v = t::complete(&mcpwasm_completers(), params).unwrap();
    assert_eq!(
        v.to_json(),
        r#"{"completion":{"values":["None Some(\"notes://{dir}/{name}\") name Some(\"work\") \"test\"","a"],"total":7,"hasMore":true}}"#
    );
    let v = complete_arg(NOTES, "name", "").unwrap();
    assert_eq!(v["completion"]["values"][0].as_str(), Some(r#"None Some("notes://{dir}/{name}") name None "test""#));
}

#[test]
fn completion_limits() {
    let c = Completion::new((0..101).map(|i| i.to_string()).collect());
    let v = c.to_value();
    assert_eq!(v["completion"]["values"].as_array().map(Vec::len), Some(100));
    assert_eq!(v["completion"]["values"][99].as_str(), Some("99"));
    assert_eq!(v["completion"]["total"].as_i64(), Some(101));
    assert_eq!(v["completion"]["hasMore"].as_bool(), Some(true));
    // An explicit total wins; exactly 100 values are not cut.
    let v = Completion::new((0..101).map(|i| i.to_string()).collect()).with_total(5000).to_value();
    assert_eq!(v["completion"]["total"].as_i64(), Some(5000));
    let v = Completion::new((0..100).map(|i| i.to_string()).collect()).to_value();
    assert_eq!((v["completion"].get("total"), v["completion"].get("hasMore")), (None, None));
    assert_eq!(Completion::matching("b", vec![String::from("ab"), "ba".into()]).values(), ["ba"]);
}

#[test]
fn malformed_complete_input_fails() {
    let c = mcpwasm_completers();
    for input in ["", "{}", r#"{"request":{"argument":{"name":"x"}}}"#, r#"{"request":{"ref":{"type":"ref/prompt"}}}"#]
    {
        let o = t::run(|| mcpwasm::prompt_exports::complete(&c), input);
        assert_eq!(o.rc, 1, "{}", input);
        assert!(o.error.unwrap().starts_with("mcpwasm: malformed complete input"));
    }
}
