import { registerTool, Call, ToolResult } from "../assembly/index";
export { list_tools, call_tool, mcpwasm_abi_version } from "../assembly/index";

function hello(call: Call): ToolResult {
  const name = call.string("name");
  if (name == "abort") assert(false, "asked to abort");
  return ToolResult.text("Hello, " + name + "!");
}

registerTool("hello", "Greets someone by name",
  `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, hello);
