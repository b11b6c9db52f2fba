// A test plugin for the rest of ABI v1: resources, templates, prompts,
// completion and the host functions that answer or notify (see abi.mjs).
import {
  registerTool, Call, ToolResult, JSONValue,
  registerResource, registerResourceTemplate, ReadRequest, ResourceResult,
  registerPrompt, PromptRequest, PromptResult, textBlock,
  CompleteRequest, Completion,
  SamplingRequest, createMessage, elicit, elicitURL, listRoots, notifyElicitationComplete,
  notifyResourceUpdated, notifyToolListChanged, notifyResourceListChanged, notifyPromptListChanged,
} from "../assembly/index";
export {
  list_tools, call_tool, mcpwasm_abi_version, list_resources, list_resource_templates, read_resource,
  list_prompts, get_prompt, complete,
} from "../assembly/index";

// Resources.

function greeting(req: ReadRequest): ResourceResult {
  return ResourceResult.text("hello from " + req.plugin + " (" + req.mimeType + ", template \"" + req.template + "\")");
}

function bytes(req: ReadRequest): ResourceResult {
  const b = new Uint8Array(5);
  for (let i = 0; i < 5; i++) b[i] = <u8>(250 + i);
  return ResourceResult.blob(b, "image/png");
}

function multi(req: ReadRequest): ResourceResult {
  const one = new Uint8Array(1);
  one[0] = 0x41;
  return ResourceResult.text("first").withText("second", "text/markdown", req.uri + "/b").withBlob(one, null, "mem://other");
}

function broken(req: ReadRequest): ResourceResult { return ResourceResult.error("disk on fire"); }
function empty(req: ReadRequest): ResourceResult { return new ResourceResult(); }

/** Echoes the template variables as JSON, or not found for ids that are not numbers. */
function vars(req: ReadRequest): ResourceResult {
  const o = JSONValue.object().setString("template", req.template);
  const keys = req.vars.keys().sort();
  for (let i = 0; i < keys.length; i++) o.setString(keys[i], req.var(keys[i]));
  if (req.hasVar("id") && (req.var("id").length == 0 || !isInteger(req.var("id")))) return ResourceResult.notFound(req.uri);
  o.setString("missing", req.var("nope", "dflt"));
  return ResourceResult.text(o.stringify());
}

function isInteger(s: string): bool {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 0x30 || s.charCodeAt(i) > 0x39) return false;
  return true;
}

registerResource("mem://greeting", "greeting", greeting).withTitle("Greeting").withDescription("A friendly text")
  .withMimeType("text/plain").withSize(42).withAnnotations(`{"audience":["user"],"priority":0.5}`);
registerResource("mem://bytes", "bytes", bytes).withMimeType("application/octet-stream");
registerResource("mem://multi", "multi", multi).withMimeType("text/plain");
registerResource("mem://broken", "broken", broken);
registerResource("mem://empty", "empty", empty);
registerResource("users://7/profile", "seven", greeting); // a declared URI wins over a matching template
registerResourceTemplate("users://{id}/profile", "user", vars).withMimeType("application/json").withTitle("User")
  .withCompleter("id", userIDs);
registerResourceTemplate("files:///{+path}", "file", vars).withDescription("Any file");
registerResourceTemplate("search://q{?q,lang}", "search", vars).withCompletion("lang", ["en", "de", "el", "fr"]);

// Prompts.

function review(req: PromptRequest): PromptResult {
  return new PromptResult("Code review").user("Review this " + req.arg("language", "code") + ":\n" + req.arg("code"));
}

function fails(req: PromptRequest): PromptResult { return PromptResult.error("nothing to prompt for " + req.name); }

function chat(req: PromptRequest): PromptResult {
  return new PromptResult().assistant("I am " + req.plugin + (req.has("mood") ? ", " + req.arg("mood") : ""))
    .withMessage("user", JSONValue.object().setString("type", "image").setString("data", "AAEC").setString("mimeType", "image/png"))
    .withDescription("A chat");
}

registerPrompt("review", "Review some code", review).withTitle("Code review")
  .withArgument("code", "The code", true).withArgument("language")
  .withCompletion("language", ["go", "python", "rust", "typescript"]);
registerPrompt("fails", "Always fails", fails);
registerPrompt("chat", "A chat", chat).withArgument("mood", "How to sound").withCompleter("mood", many);

// Completion handlers.

function userIDs(req: CompleteRequest): Completion {
  return Completion.of([req.refType + " " + req.uri + " " + req.argument + "=" + req.value + " org=" + req.resolvedArg("org", "none")]);
}

function many(req: CompleteRequest): Completion {
  const out = new Array<string>();
  for (let i = 0; i < 150; i++) out.push(req.value + i.toString());
  return Completion.of(out);
}

// Tools that use the host functions.

function sample(call: Call): ToolResult {
  const r = createMessage(new SamplingRequest(32).user(call.optString("prompt", "ping")).assistant("pong?")
    .withSystemPrompt("be brief").withTemperature(0.5).withStopSequence("\n").withStopSequence("END")
    .withIncludeContext("none").withModelPreferences(JSONValue.object().setNumber("speedPriority", 1))
    .withMessage("user", textBlock("again")).set("metadata", JSONValue.object().setBool("x", true)));
  if (!r.ok) return ToolResult.error("sampling unavailable: " + r.error);
  return ToolResult.text(r.role + " " + r.model + " " + r.stopReason + ": " + r.text);
}

function ask(call: Call): ToolResult {
  const r = elicit("Your name?", call.optString("schema", `{"type":"object","properties":{"name":{"type":"string"}}}`));
  if (!r.ok) return ToolResult.error("elicitation unavailable: " + r.error);
  return ToolResult.text(r.action + " " + r.string("name") + " " + r.accepted.toString() + " " + r.content.stringify());
}

function visit(call: Call): ToolResult {
  const r = elicitURL("Log in", "https://example.com/login", "el-1");
  if (!r.ok) return ToolResult.error("elicitation unavailable: " + r.error);
  notifyElicitationComplete("el-1");
  return ToolResult.text(r.action);
}

function roots(call: Call): ToolResult {
  const r = listRoots();
  if (!r.ok) return ToolResult.error("roots unavailable: " + r.error);
  const rs = r.roots;
  const parts = new Array<string>();
  for (let i = 0; i < rs.length; i++) parts.push(rs[i].uri + "|" + rs[i].name);
  return ToolResult.text(parts.join(","));
}

function notify(call: Call): ToolResult {
  notifyResourceUpdated(call.string("uri"));
  notifyToolListChanged();
  notifyResourceListChanged();
  notifyPromptListChanged();
  return ToolResult.text("notified");
}

registerTool("sample", "Samples", `{"type":"object"}`, sample);
registerTool("ask", "Elicits", `{"type":"object"}`, ask);
registerTool("visit", "URL elicitation", `{"type":"object"}`, visit);
registerTool("roots", "Lists roots", `{"type":"object"}`, roots);
registerTool("notify", "Notifies", `{"type":"object"}`, notify);
