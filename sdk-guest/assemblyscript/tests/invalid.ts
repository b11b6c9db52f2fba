// A test plugin for the checks list_resource_templates and list_prompts make
// at load time (see invalid.mjs). run.mjs builds it once per case with
// `--use CASE=n`; each case registers one valid item and then one mistake.
import {
  registerResourceTemplate, ReadRequest, ResourceResult, registerPrompt, PromptRequest, PromptResult,
} from "../assembly/index";
export { mcpwasm_abi_version, list_resource_templates, read_resource, list_prompts, get_prompt } from "../assembly/index";

// @ts-ignore: defined by asc --use CASE=n
const which: i32 = CASE;

function read(req: ReadRequest): ResourceResult { return ResourceResult.text(req.uri); }
function prompt(req: PromptRequest): PromptResult { return new PromptResult().user(req.name); }

registerResourceTemplate("ok://{id}", "ok", read);
registerPrompt("ok", "Fine", prompt);

if (which == 1) registerResourceTemplate("bad://{id", "unclosed", read);
if (which == 2) registerResourceTemplate("", "empty", read);
if (which == 3) registerResourceTemplate("ok://{id}", "again", read);
if (which == 4) registerResourceTemplate("noname://{id}", "", read);
if (which == 5) registerPrompt("ok", "Again", prompt);
if (which == 6) registerPrompt("", "No name", prompt);
if (which == 7) registerPrompt("a.b", "A dot", prompt);
