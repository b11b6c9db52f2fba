// A test plugin exercising the rest of the SDK's API (see run.mjs).
import { registerTool, Call, ToolResult, JSONValue, config, progress, log, logText } from "../assembly/index";
export { list_tools, call_tool, mcpwasm_abi_version } from "../assembly/index";

function features(call: Call): ToolResult {
  const n = call.integer("n");
  const scale = call.optNumber("scale", 1.5);
  const loud = call.optBoolean("loud", false);
  const tag = call.optString("tag", "none");
  progress(1, 2, "half way");
  progress(2);
  log("info", JSONValue.object().setNumber("n", <f64>n));
  logText("debug", "plain");
  const greeting = config("greeting");
  const out = JSONValue.object()
    .setNumber("n", <f64>n).setNumber("scaled", <f64>n * scale).setBool("loud", loud).setString("tag", tag)
    .setString("greeting", greeting == null ? "(none)" : greeting)
    .setString("plugin", call.plugin).setNumber("deadline", <f64>call.deadlineMs).set("mounts", call.mounts);
  const png = new Uint8Array(3);
  png[0] = 0x66; png[1] = 0x6f; png[2] = 0x6f;
  return ToolResult.json(out).withImage(png, "image/png").withMeta(JSONValue.object().setBool("x", true));
}

function fails(call: Call): ToolResult {
  return ToolResult.error("nothing to do for " + call.string("what"));
}

registerTool("features", "Exercises the SDK", `{"type":"object","properties":{"n":{"type":"integer"}}}`, features)
  .withTitle("Features").withAnnotations(`{"readOnlyHint":true}`).withOutputSchema(`{"type":"object"}`);
registerTool("fails", "Always an error", `{"type":"object"}`, fails).withTask("optional");
