// The SDK parity plugin (testdata/SDK-PARITY.md), written with the
// AssemblyScript SDK's public API only.
import {
  registerTool, Call, ToolResult, JSONValue, config, progress, log,
  SamplingRequest, createMessage, elicit, listRoots,
  notifyResourceUpdated, notifyToolListChanged, notifyResourceListChanged, notifyPromptListChanged,
  notifyElicitationComplete,
  registerResource, registerResourceTemplate, ReadRequest, ResourceResult,
  registerPrompt, PromptRequest, PromptResult,
} from "@mcpwasm/sdk";
export {
  list_tools, call_tool, mcpwasm_abi_version, list_resources, list_resource_templates, read_resource,
  list_prompts, get_prompt, complete,
} from "@mcpwasm/sdk";

const LANG = "as";
const OBJECT = `{"type":"object"}`;

// Tools.

function greet(call: Call): ToolResult {
  const name = call.optString("name", "");
  if (name.length == 0) return ToolResult.error("name is required");
  return ToolResult.text("Hello, " + name + "!");
}

function report(call: Call): ToolResult {
  const steps = call.integer("steps");
  for (let i: i64 = 1; i <= steps; i++) progress(<f64>i, <f64>steps, "step " + i.toString());
  log("info", JSONValue.object().setNumber("steps", <f64>steps), "parity");
  const greeting = config("greeting");
  return ToolResult.json(JSONValue.object().setString("lang", LANG).setNumber("steps", <f64>steps)
    .setString("plugin", call.plugin).set("greeting", greeting == null ? JSONValue.null() : JSONValue.string(greeting)));
}

function pixel(call: Call): ToolResult {
  const png = new Uint8Array(4);
  png[0] = 0x89; png[1] = 0x50; png[2] = 0x4e; png[3] = 0x47;
  return ToolResult.image(png, "image/png");
}

function ask(call: Call): ToolResult {
  const r = createMessage(new SamplingRequest(16).user("ping"));
  if (!r.ok) return ToolResult.error("sampling unavailable: " + r.error);
  return ToolResult.text("model said: " + r.text);
}

function elicitName(call: Call): ToolResult {
  const r = elicit("Your name?", `{"type":"object","properties":{"name":{"type":"string"}}}`);
  if (!r.ok) return ToolResult.error("elicitation unavailable: " + r.error);
  return ToolResult.text(r.action + " " + r.string("name"));
}

function roots(call: Call): ToolResult {
  const r = listRoots();
  if (!r.ok) return ToolResult.error("roots unavailable: " + r.error);
  const rs = r.roots;
  const uris = new Array<string>();
  for (let i = 0; i < rs.length; i++) uris.push(rs[i].uri);
  return ToolResult.text(uris.join(","));
}

function touch(call: Call): ToolResult {
  const uri = call.string("uri");
  notifyResourceUpdated(uri);
  return ToolResult.text("touched " + uri);
}

function changed(call: Call): ToolResult {
  notifyToolListChanged();
  notifyResourceListChanged();
  notifyPromptListChanged();
  notifyElicitationComplete("el-parity");
  return ToolResult.text("changed");
}

function crash(call: Call): ToolResult {
  throw new Error("crash on purpose");
}

registerTool("greet", "Greets someone", `{"type":"object","properties":{"name":{"type":"string"}}}`, greet).withTitle("Greeter");
registerTool("report", "Reports progress and a log message",
  `{"type":"object","properties":{"steps":{"type":"integer"}},"required":["steps"]}`, report);
registerTool("pixel", "Returns a tiny image", OBJECT, pixel).withAnnotations(`{"readOnlyHint":true}`);
registerTool("ask", "Asks the client's model", OBJECT, ask);
registerTool("elicit", "Asks the user for a name", OBJECT, elicitName);
registerTool("roots", "Lists the client's roots", OBJECT, roots);
registerTool("touch", "Says a resource changed",
  `{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}`, touch);
registerTool("changed", "Says every list changed", OBJECT, changed);
registerTool("crash", "Crashes", OBJECT, crash);

// Resources.

function about(req: ReadRequest): ResourceResult {
  return ResourceResult.text("parity plugin in " + LANG);
}

function blob(req: ReadRequest): ResourceResult {
  const b = new Uint8Array(4);
  for (let i = 0; i < 4; i++) b[i] = <u8>i;
  return ResourceResult.blob(b);
}

function item(req: ReadRequest): ResourceResult {
  const id = req.var("id");
  if (id != "1" && id != "2" && id != "3") return ResourceResult.notFound(req.uri);
  return ResourceResult.text(JSONValue.object().setString("id", id).stringify());
}

registerResource("parity://about", "about", about).withMimeType("text/plain");
registerResource("parity://blob", "blob", blob).withMimeType("application/octet-stream");
registerResourceTemplate("parity://items/{id}", "item", item).withMimeType("application/json")
  .withCompletion("id", ["1", "2", "3"]);

// Prompts.

function review(req: PromptRequest): PromptResult {
  return new PromptResult("Code review").user("Review this " + req.arg("language", "code") + ":\n" + req.arg("code"));
}

registerPrompt("review", "Review some code", review)
  .withArgument("code", "", true)
  .withArgument("language")
  .withCompletion("language", ["go", "python", "rust", "typescript"]);
