// @mcpwasm/sdk: write mcpwasm plugins (ABI v1) in AssemblyScript.
//
// Your entry file registers tools at top level and re-exports the ABI exports:
//
//   import { registerTool, Call, ToolResult } from "@mcpwasm/sdk";
//   export { list_tools, call_tool, mcpwasm_abi_version } from "@mcpwasm/sdk";
//
// and builds with an asconfig.json extending the SDK's plugin.asconfig.json,
// which wires `--use abort=...` to mcpwasmAbort.

import { listTools, callTool } from "./tool";

export { JSONKind, JSONValue, parseJSON, jsonError, formatNumber, DEFAULT_MAX_DEPTH } from "./json";
export { Call, Handler, Tool, ToolResult, registerTool, base64 } from "./tool";
export { config, progress, log, logText, setError, mcpwasmAbort } from "./host";

/** The ABI version this SDK implements. */
export const ABI_VERSION: i32 = 1;

/** mcpwasm ABI export: the ListToolsResult of every registered tool. */
export function list_tools(): i32 {
  return listTools();
}

/** mcpwasm ABI export: {"request", "context"} -> CallToolResult. */
export function call_tool(): i32 {
  return callTool();
}

/** mcpwasm ABI export: the ABI version this plugin was written for. */
export function mcpwasm_abi_version(): i32 {
  return ABI_VERSION;
}
