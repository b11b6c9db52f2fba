// @mcpwasm/sdk: write mcpwasm plugins (ABI v1) in AssemblyScript.
//
// Your entry file registers tools, resources and prompts at top level and
// re-exports the ABI exports it provides, for example:
//
//   import { registerTool, Call, ToolResult } from "@mcpwasm/sdk";
//   export { list_tools, call_tool, mcpwasm_abi_version } from "@mcpwasm/sdk";
//
// The host advertises capabilities from the module's exports, so re-export
// only what the plugin provides: list_resources and read_resource for
// resources, plus list_resource_templates for templates (a plugin with only
// templates re-exports list_resource_templates and read_resource);
// list_prompts and get_prompt for prompts; complete for completions. Build
// with an asconfig.json extending the SDK's plugin.asconfig.json, which wires
// `--use abort=...` to mcpwasmAbort.

import { listTools, callTool } from "./tool";
import { listResources, listResourceTemplates, readResource } from "./resource";
import { listPrompts, getPrompt } from "./prompt";
import { completeExport } from "./completion";

export { JSONKind, JSONValue, parseJSON, jsonError, formatNumber, DEFAULT_MAX_DEPTH } from "./json";
export { Call, Handler, Tool, ToolResult, registerTool, base64 } from "./tool";
export {
  config, progress, log, logText, setError, mcpwasmAbort, notifyResourceUpdated, notifyToolListChanged,
  notifyResourceListChanged, notifyPromptListChanged, notifyElicitationComplete,
} from "./host";
export {
  HostResult, SamplingRequest, SamplingResult, createMessage, ElicitResult, createElicitation, elicit, elicitURL,
  Root, RootsResult, listRoots, textBlock,
} from "./client";
export { Request } from "./envelope";
export {
  Resource, ResourceTemplate, ResourceHandler, ReadRequest, ResourceResult, ResourceContent, registerResource,
  registerResourceTemplate,
} from "./resource";
export { Prompt, PromptArgument, PromptHandler, PromptRequest, PromptResult, registerPrompt } from "./prompt";
export { Completion, CompleteRequest, Completer, MAX_COMPLETION_VALUES } from "./completion";
export { Skill, registerSkill, list_skills } from "./skill";
export { URITemplate, percentDecode } from "./uritemplate";

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

/** mcpwasm ABI export: the ListResourcesResult of every registered resource. */
export function list_resources(): i32 {
  return listResources();
}

/** mcpwasm ABI export: the ListResourceTemplatesResult of every registered template. */
export function list_resource_templates(): i32 {
  return listResourceTemplates();
}

/** mcpwasm ABI export: {"request": {"uri"}, "context"} -> ReadResourceResult, or error_set and 1. */
export function read_resource(): i32 {
  return readResource();
}

/** mcpwasm ABI export: the ListPromptsResult of every registered prompt. */
export function list_prompts(): i32 {
  return listPrompts();
}

/** mcpwasm ABI export: {"request": {"name", "arguments"}, "context"} -> GetPromptResult, or error_set and 1. */
export function get_prompt(): i32 {
  return getPrompt();
}

/** mcpwasm ABI export: {"request": CompleteRequest params, "context"} -> CompleteResult. */
export function complete(): i32 {
  return completeExport();
}
