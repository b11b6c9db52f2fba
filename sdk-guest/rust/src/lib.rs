//! Guest SDK for [mcpwasm](../../abi/ABI.md) plugins, ABI v1.
//!
//! A plugin declares its tools with [`plugin!`], which defines the
//! `list_tools`, `call_tool` and `mcpwasm_abi_version` exports:
//!
//! ```
//! use mcpwasm::{Call, Tool, ToolResult};
//!
//! fn hello(call: &Call) -> Result<ToolResult, String> {
//!     Ok(ToolResult::text(format!("Hello, {}!", call.string("name")?)))
//! }
//!
//! mcpwasm::plugin! {
//!     tools: [
//!         Tool::new("hello", "Greets someone by name", r#"{"type":"object",
//!             "properties":{"name":{"type":"string"}},"required":["name"]}"#, hello),
//!     ]
//! }
//! # fn main() {
//! # let r = mcpwasm::testing::call_tool(&mcpwasm_tools(), "hello", r#"{"name":"Ada"}"#);
//! # assert_eq!(r["content"][0]["text"].as_str(), Some("Hello, Ada!"));
//! # }
//! ```
//!
//! A handler's `Err(message)` becomes an `isError` result the model reads (ABI.md §4), and so does a panic.
//! [`resources!`], [`prompts!`] and [`completions!`] define the other exports of ABI v1; [`create_message`],
//! [`create_elicitation`], [`list_roots`], [`progress`], [`log`] and the `notify_*` functions talk to the client.
//!
//! The crate has no dependencies. It builds with Rust 1.63 for `wasm32-wasi`
//! and with newer toolchains for `wasm32-wasip1` or `wasm32-unknown-unknown`.

pub mod json;

mod call;
mod host;
mod kernel;
mod result;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;

pub use call::{Call, Mount};
pub use host::{config, debug, log, log_as, progress, Level};
pub use json::Value;
pub use result::{base64, ToolResult};

/// The ABI version this SDK implements (`mcpwasm_abi_version`).
pub const ABI_VERSION: i32 = 1;

/// A tool handler. `Err(message)` becomes an `isError` result.
pub type Handler = fn(&Call) -> Result<ToolResult, String>;

/// One tool a plugin declares. The schemas are JSON text, checked when the
/// host lists the tools at load time.
#[derive(Clone, Copy)]
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    /// A JSON Schema object with `"type": "object"`.
    pub input_schema: &'static str,
    pub handler: Handler,
    pub title: Option<&'static str>,
    pub output_schema: Option<&'static str>,
    /// MCP tool annotations as a JSON object, e.g. `{"readOnlyHint": true}`.
    pub annotations: Option<&'static str>,
    /// Task support (ABI.md §2): `"optional"` or `"required"`; `None` is a
    /// plain tool.
    pub task: Option<&'static str>,
    /// With a task mode: ask the client before the task starts.
    pub task_input_first: bool,
}

impl Tool {
    pub const fn new(
        name: &'static str,
        description: &'static str,
        input_schema: &'static str,
        handler: Handler,
    ) -> Tool {
        Tool {
            name,
            description,
            input_schema,
            handler,
            title: None,
            output_schema: None,
            annotations: None,
            task: None,
            task_input_first: false,
        }
    }
    /// A human-readable title.
    pub const fn title(self, title: &'static str) -> Tool {
        Tool { title: Some(title), ..self }
    }
    /// The JSON Schema of `structuredContent`.
    pub const fn output_schema(self, schema: &'static str) -> Tool {
        Tool { output_schema: Some(schema), ..self }
    }
    /// Annotations (`readOnlyHint`, `idempotentHint`, ...) as a JSON object.
    pub const fn annotations(self, annotations: &'static str) -> Tool {
        Tool { annotations: Some(annotations), ..self }
    }

    /// Runs the tool as a task (MCP's io.modelcontextprotocol/tasks) when the
    /// client supports tasks: `"optional"` (a client without tasks gets a
    /// plain call) or `"required"` (such a client is refused). The host
    /// answers at once with a task and runs the handler detached, under the
    /// server's task time limit.
    pub const fn task(self, mode: &'static str) -> Tool {
        Tool { task: Some(mode), ..self }
    }
    /// With [`Tool::task`]: the questions the handler asks are answered by
    /// multi round-trip before the task starts, instead of in the task
    /// through tasks/update.
    pub const fn task_input_first(self) -> Tool {
        Tool { task_input_first: true, ..self }
    }

    /// The MCP `Tool` object, or why the declaration is wrong.
    pub fn to_value(&self) -> Result<Value, String> {
        let name = self.name;
        let ok_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if name.is_empty() || name.len() > 64 || !name.chars().all(ok_char) {
            return Err(format!("tool name {:?} must be 1-64 characters of [A-Za-z0-9_-]", name));
        }
        let schema = |what: &str, text: &str| -> Result<Value, String> {
            let v = json::parse(text).map_err(|e| format!("tool {}: {} is not valid JSON: {}", name, what, e))?;
            if v["type"].as_str() != Some("object") {
                return Err(format!("tool {}: {} must be a JSON Schema object with \"type\": \"object\"", name, what));
            }
            Ok(v)
        };
        let mut v = Value::object().with("name", name);
        if let Some(t) = self.title {
            v.insert("title", t);
        }
        v.insert("description", self.description);
        v.insert("inputSchema", schema("inputSchema", self.input_schema)?);
        if let Some(s) = self.output_schema {
            v.insert("outputSchema", schema("outputSchema", s)?);
        }
        if let Some(a) = self.annotations {
            let a = json::parse(a).map_err(|e| format!("tool {}: annotations are not valid JSON: {}", name, e))?;
            v.insert("annotations", a);
        }
        match self.task {
            Some(m @ ("optional" | "required")) => {
                let mut e = Value::object().with("taskSupport", m);
                if self.task_input_first {
                    e.insert("inputFirst", true);
                }
                v.insert("execution", e);
            }
            Some(m) => {
                return Err(format!("tool {}: task mode must be \"optional\" or \"required\", not {:?}", name, m))
            }
            None if self.task_input_first => return Err(format!("tool {}: task_input_first without task", name)),
            None => {}
        }
        Ok(v)
    }
}

/// Defines the plugin's exports from its tool list:
///
/// ```ignore
/// mcpwasm::plugin! {
///     tools: [ Tool::new("hello", "Greets someone", SCHEMA, hello), ... ]
/// }
/// ```
///
/// It also defines `pub fn mcpwasm_tools() -> Vec<mcpwasm::Tool>`, for tests
/// (see [`testing`]).
#[macro_export]
macro_rules! plugin {
    (tools: [ $($tool:expr),* $(,)? ] $(,)?) => {
        /// The tools this plugin declares.
        pub fn mcpwasm_tools() -> ::std::vec::Vec<$crate::Tool> {
            ::std::vec![$($tool),*]
        }

        /// mcpwasm ABI: `ListToolsResult`.
        #[no_mangle]
        pub extern "C" fn list_tools() -> i32 {
            $crate::exports::list_tools(&mcpwasm_tools())
        }

        /// mcpwasm ABI: `{"request", "context"}` -> `CallToolResult`.
        #[no_mangle]
        pub extern "C" fn call_tool() -> i32 {
            $crate::exports::call_tool(&mcpwasm_tools())
        }

        /// mcpwasm ABI: the version this plugin was written for.
        #[no_mangle]
        pub extern "C" fn mcpwasm_abi_version() -> i32 {
            $crate::ABI_VERSION
        }
    };
}

/// The bodies of the exports [`plugin!`] defines. Return codes follow the
/// Extism convention: 0 for success, 1 after `error_set`.
#[doc(hidden)]
pub mod exports {
    use super::{json, kernel, Call, Tool, ToolResult, Value};

    pub fn list_tools(tools: &[Tool]) -> i32 {
        install_panic_hook();
        let mut list = Vec::with_capacity(tools.len());
        for (i, t) in tools.iter().enumerate() {
            if tools[..i].iter().any(|u| u.name == t.name) {
                return fail(&format!("tool {} is declared twice", t.name));
            }
            match t.to_value() {
                Ok(v) => list.push(v),
                Err(e) => return fail(&e),
            }
        }
        kernel::output(Value::object().with("tools", list).to_json().as_bytes());
        0
    }

    pub fn call_tool(tools: &[Tool]) -> i32 {
        install_panic_hook();
        let input = kernel::input();
        let call = match json::parse_bytes(&input).map_err(|e| e.to_string()).and_then(|v| Call::from_envelope(&v)) {
            Ok(c) => c,
            Err(e) => return fail(&format!("mcpwasm: malformed call_tool input: {}", e)),
        };
        let result = match tools.iter().find(|t| t.name == call.name()) {
            Some(t) => (t.handler)(&call).unwrap_or_else(ToolResult::error),
            None => ToolResult::error(format!("unknown tool {:?}", call.name())),
        };
        kernel::output(result.to_value().to_json().as_bytes());
        0
    }

    fn fail(message: &str) -> i32 {
        kernel::set_error(message);
        1
    }

    /// On wasm, a panic aborts the instance (a trap). Before that, report it
    /// on stderr in the form the host recognises (`panicked at ...`, one
    /// line) and with `error_set`.
    fn install_panic_hook() {
        #[cfg(target_arch = "wasm32")]
        {
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| {
                std::panic::set_hook(Box::new(|info| {
                    let p = info.payload();
                    let msg =
                        p.downcast_ref::<&str>().copied().or_else(|| p.downcast_ref::<String>().map(|s| s.as_str()));
                    let msg = msg.unwrap_or("Box<dyn Any>");
                    let at = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
                    let line = format!("panicked at {}: {}", at.as_deref().unwrap_or("<unknown>"), msg);
                    eprintln!("{}", line.replace('\n', " "));
                    kernel::set_error(&line);
                }));
            });
        }
    }
}

// Resources (ABI.md §5). They come last in this file, so that no line above
// moved (panic locations are part of a module's bytes); see resource.rs.
mod resource;
pub use resource::{percent_decode, ReadRequest, ReadResult, Resource, ResourceHandler, ResourceTemplate};

/// Defines the resource exports from a plugin's resources and resource
/// templates; use it next to [`plugin!`]:
///
/// ```ignore
/// mcpwasm::resources! {
///     resources: [ Resource::new("notes://index", "Index", read_index), ... ],
///     templates: [ ResourceTemplate::new("notes://{id}", "Note", read_note), ... ],
/// }
/// ```
///
/// Either list may be empty. It defines the `list_resources`,
/// `list_resource_templates` and `read_resource` exports, and
/// `pub fn mcpwasm_resources()` and `pub fn mcpwasm_resource_templates()` for
/// tests (see [`testing::read_resource`]). A read goes to the resource with
/// exactly that URI, else to the first template that matches it.
#[macro_export]
macro_rules! resources {
    (resources: [ $($res:expr),* $(,)? ], templates: [ $($tpl:expr),* $(,)? ] $(,)?) => {
        /// The concrete resources this plugin declares.
        pub fn mcpwasm_resources() -> ::std::vec::Vec<$crate::Resource> {
            ::std::vec![$($res),*]
        }

        /// The resource templates this plugin declares.
        pub fn mcpwasm_resource_templates() -> ::std::vec::Vec<$crate::ResourceTemplate> {
            ::std::vec![$($tpl),*]
        }

        /// mcpwasm ABI: `ListResourcesResult`.
        #[no_mangle]
        pub extern "C" fn list_resources() -> i32 {
            $crate::resource_exports::list_resources(&mcpwasm_resources())
        }

        /// mcpwasm ABI: `ListResourceTemplatesResult`.
        #[no_mangle]
        pub extern "C" fn list_resource_templates() -> i32 {
            $crate::resource_exports::list_resource_templates(&mcpwasm_resource_templates())
        }

        /// mcpwasm ABI: `{"request": {"uri"}, "context"}` -> `ReadResourceResult`.
        #[no_mangle]
        pub extern "C" fn read_resource() -> i32 {
            $crate::resource_exports::read_resource(&mcpwasm_resources(), &mcpwasm_resource_templates())
        }
    };
}

#[doc(hidden)]
pub mod resource_exports;

mod skill;
#[doc(hidden)]
pub use skill::list_skills as __list_skills;
pub use skill::Skill;

/// Defines the `list_skills` export (ABI.md §5a) from a plugin's skills,
/// their files embedded at build time:
///
/// ```ignore
/// mcpwasm::skills! {
///     skills: [
///         Skill::new("review")
///             .text("SKILL.md", include_str!("../skills/review/SKILL.md"))
///             .text("references/checklist.md", include_str!("../skills/review/references/checklist.md")),
///     ],
/// }
/// ```
///
/// It also defines `pub fn mcpwasm_skills()` for tests
/// (see [`testing::list_skills`]).
#[macro_export]
macro_rules! skills {
    (skills: [ $($s:expr),* $(,)? ] $(,)?) => {
        /// The skills this plugin ships.
        pub fn mcpwasm_skills() -> ::std::vec::Vec<$crate::Skill> {
            ::std::vec![$($s),*]
        }

        /// mcpwasm ABI 1.1: `{"skills": [{"path", "files"}]}`.
        #[no_mangle]
        pub extern "C" fn list_skills() -> i32 {
            $crate::__list_skills(&mcpwasm_skills())
        }
    };
}

// Prompts, completion and the client host functions (ABI.md §5 and §6) come
// after resources, for the same reason; see io.rs.
mod client;
mod completion;
mod io;
mod prompt;
pub use client::{
    create_elicitation, create_elicitation_with, create_message, list_roots, notify_prompt_list_changed,
    notify_resource_list_changed, notify_resource_updated, notify_tool_list_changed, Elicitation, Root,
    SamplingRequest, SamplingResult,
};
pub use completion::{CompleteHandler, CompleteRequest, Completer, Completion, MAX_COMPLETION_VALUES};
pub use prompt::{Prompt, PromptArgument, PromptHandler, PromptRequest, PromptResult, Role};

/// Defines the prompt exports from a plugin's prompts; use it next to
/// [`plugin!`]:
///
/// ```ignore
/// mcpwasm::prompts! {
///     prompts: [
///         Prompt::new("review", "Review some code", review)
///             .required_argument("code", "The code to review"),
///     ],
/// }
/// ```
///
/// It defines the `list_prompts` and `get_prompt` exports and
/// `pub fn mcpwasm_prompts()` for tests (see [`testing::get_prompt`]).
/// `get_prompt` fails with `<argument> is required` when a required argument
/// is absent or empty, before the handler runs.
#[macro_export]
macro_rules! prompts {
    (prompts: [ $($prompt:expr),* $(,)? ] $(,)?) => {
        /// The prompts this plugin declares.
        pub fn mcpwasm_prompts() -> ::std::vec::Vec<$crate::Prompt> {
            ::std::vec![$($prompt),*]
        }

        /// mcpwasm ABI: `ListPromptsResult`.
        #[no_mangle]
        pub extern "C" fn list_prompts() -> i32 {
            $crate::prompt_exports::list_prompts(&mcpwasm_prompts())
        }

        /// mcpwasm ABI: `{"request": {"name", "arguments"?}, "context"}` -> `GetPromptResult`.
        #[no_mangle]
        pub extern "C" fn get_prompt() -> i32 {
            $crate::prompt_exports::get_prompt(&mcpwasm_prompts())
        }
    };
}

/// Defines the `complete` export (MCP `completion/complete`) from the
/// arguments a plugin completes, of its prompts and resource templates:
///
/// ```ignore
/// mcpwasm::completions! {
///     completions: [
///         Completer::prompt("review", "language", languages),
///         Completer::resource("notes://{id}", "id", note_ids),
///     ],
/// }
/// ```
///
/// A request goes to the first completer for its reference and argument; a
/// request no completer claims gets no values. It also defines
/// `pub fn mcpwasm_completers()` for tests (see [`testing::complete`]).
#[macro_export]
macro_rules! completions {
    (completions: [ $($completer:expr),* $(,)? ] $(,)?) => {
        /// The arguments this plugin completes.
        pub fn mcpwasm_completers() -> ::std::vec::Vec<$crate::Completer> {
            ::std::vec![$($completer),*]
        }

        /// mcpwasm ABI: `{"request": CompleteRequest params, "context"}` -> `CompleteResult`.
        #[no_mangle]
        pub extern "C" fn complete() -> i32 {
            $crate::prompt_exports::complete(&mcpwasm_completers())
        }
    };
}

#[doc(hidden)]
pub mod prompt_exports;

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

// Added after the rest so that no line above moves (see io.rs): tools-only
// plugins keep their bytes.
pub use client::notify_url_elicitation_completed;
mod exports_common;
