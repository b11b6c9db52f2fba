// Tools: registration, the Call a handler receives and the ToolResult it returns.

import { JSONValue, parseJSON, jsonError } from "./json";
import { outputString, setError } from "./host";
import { Request, outputListing, readNamed } from "./envelope";

/** A tool handler. Return ToolResult.error(...) for failures the model should see. */
export type Handler = (call: Call) => ToolResult;

/** A registered tool; registerTool returns it for the optional builders. */
export class Tool {
  title: string | null = null;
  outputSchema: string | null = null;
  annotations: string | null = null;
  task: string | null = null;
  taskInputFirst: bool = false;
  constructor(public name: string, public description: string, public inputSchema: string, public handler: Handler) {}

  withTitle(title: string): Tool { this.title = title; return this; }
  /** The JSON Schema of structuredContent, as JSON text. */
  withOutputSchema(schema: string): Tool { this.outputSchema = schema; return this; }
  /** MCP annotations as JSON text, e.g. `{"readOnlyHint": true}`. */
  withAnnotations(json: string): Tool { this.annotations = json; return this; }
  /**
   * Runs the tool as a task (MCP's io.modelcontextprotocol/tasks, ABI.md §2)
   * when the client supports tasks: "optional" (a client without tasks gets
   * a plain call) or "required" (such a client is refused).
   */
  withTask(mode: string): Tool { this.task = mode; return this; }
  /** With withTask: the client is asked before the task starts (multi round-trip). */
  withTaskInputFirst(): Tool { this.taskInputFirst = true; return this; }
}

const tools = new Array<Tool>();

/**
 * Declares a tool. Call it at the top level of your entry file; the schema is
 * JSON text and must be a JSON Schema object with "type": "object".
 */
export function registerTool(name: string, description: string, inputSchema: string, handler: Handler): Tool {
  const t = new Tool(name, description, inputSchema, handler);
  tools.push(t);
  return t;
}

/**
 * One tools/call request. The argument getters never abort: a missing or
 * mistyped argument returns a default and the call's result becomes an
 * isError result naming the argument, whatever the handler returns. (The host
 * validates arguments against inputSchema first, so this is rare.)
 */
export class Call extends Request {
  /** The first argument error, if any. */
  argError: string | null = null;
  /** A call of tool `name`; the SDK builds it from call_tool's input. */
  constructor(public name: string, public args: JSONValue, meta: JSONValue | null, context: JSONValue) { super(context, meta); }

  /** An argument, or null if it is absent or JSON null. */
  arg(key: string): JSONValue | null {
    const v = this.args.get(key);
    return v == null || v.isNull ? null : v;
  }
  has(key: string): bool { return this.arg(key) != null; }

  fail(message: string): void { if (this.argError == null) this.argError = message; }

  private typed(key: string, kind: JSONKindName, required: bool): JSONValue | null {
    const v = this.arg(key);
    if (v == null) {
      if (required) this.fail("missing required argument \"" + key + "\" (" + kind.label + ")");
      return null;
    }
    const ok = kind.label == "an integer" ? v.isNumber && v.n == Math.trunc(v.n) : v.typeName() == kind.type;
    if (!ok) {
      this.fail("argument \"" + key + "\" must be " + kind.label + ", got " + v.typeName());
      return null;
    }
    return v;
  }

  string(key: string): string { const v = this.typed(key, STRING, true); return v == null ? "" : v.s; }
  number(key: string): f64 { const v = this.typed(key, NUMBER, true); return v == null ? 0 : v.n; }
  integer(key: string): i64 { const v = this.typed(key, INTEGER, true); return v == null ? 0 : <i64>v.n; }
  boolean(key: string): bool { const v = this.typed(key, BOOLEAN, true); return v == null ? false : v.b; }
  optString(key: string, dflt: string): string { const v = this.typed(key, STRING, false); return v == null ? dflt : v.s; }
  optNumber(key: string, dflt: f64): f64 { const v = this.typed(key, NUMBER, false); return v == null ? dflt : v.n; }
  optInteger(key: string, dflt: i64): i64 { const v = this.typed(key, INTEGER, false); return v == null ? dflt : <i64>v.n; }
  optBoolean(key: string, dflt: bool): bool { const v = this.typed(key, BOOLEAN, false); return v == null ? dflt : v.b; }
}

class JSONKindName { constructor(public type: string, public label: string) {} }
const STRING = new JSONKindName("string", "a string");
const NUMBER = new JSONKindName("number", "a number");
const INTEGER = new JSONKindName("number", "an integer");
const BOOLEAN = new JSONKindName("boolean", "a boolean");

/** An MCP CallToolResult under construction. */
export class ToolResult {
  content: JSONValue[] = [];
  structured: JSONValue | null = null;
  isError: bool = false;
  meta: JSONValue | null = null;

  static text(text: string): ToolResult { return new ToolResult().withText(text); }
  /** structuredContent plus the same JSON as text, as MCP recommends. */
  static json(value: JSONValue): ToolResult { return ToolResult.text(value.stringify()).withStructured(value); }
  static image(data: Uint8Array, mimeType: string): ToolResult { return new ToolResult().withImage(data, mimeType); }
  /** An error the model reads and can act on (isError: true). */
  static error(message: string): ToolResult { const r = ToolResult.text(message); r.isError = true; return r; }

  withText(text: string): ToolResult {
    this.content.push(JSONValue.object().setString("type", "text").setString("text", text));
    return this;
  }
  withImage(data: Uint8Array, mimeType: string): ToolResult {
    this.content.push(JSONValue.object().setString("type", "image").setString("data", base64(data)).setString("mimeType", mimeType));
    return this;
  }
  withContent(block: JSONValue): ToolResult { this.content.push(block); return this; }
  withStructured(value: JSONValue): ToolResult { this.structured = value; return this; }
  withMeta(meta: JSONValue): ToolResult { this.meta = meta; return this; }

  toJSON(): JSONValue {
    const c = JSONValue.array();
    for (let i = 0; i < this.content.length; i++) c.push(this.content[i]);
    const v = JSONValue.object().set("content", c);
    const s = this.structured;
    if (s != null) v.set("structuredContent", s);
    if (this.isError) v.setBool("isError", true);
    const m = this.meta;
    if (m != null) v.set("_meta", m);
    return v;
  }
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 with padding. */
export function base64(data: Uint8Array): string {
  const parts = new Array<string>();
  for (let i = 0; i < data.length; i += 3) {
    const n = (<u32>data[i] << 16) | (i + 1 < data.length ? <u32>data[i + 1] << 8 : 0) | (i + 2 < data.length ? <u32>data[i + 2] : 0);
    parts.push(B64.charAt((n >> 18) & 63) + B64.charAt((n >> 12) & 63) +
      (i + 1 < data.length ? B64.charAt((n >> 6) & 63) : "=") + (i + 2 < data.length ? B64.charAt(n & 63) : "="));
  }
  return parts.join("");
}

/**
 * Starts the listing of items[i], a tool or a prompt (`what`):
 * {"name", "title"?, "description"}. When its name is not valid, or an
 * earlier item has it, it calls error_set and returns null; the export
 * should then return 1.
 */
export function namedListing<T>(items: T[], i: i32, what: string): JSONValue | null {
  const it = items[i];
  if (!validName(it.name)) { setError(what + " name \"" + it.name + "\" must be 1-64 characters of [A-Za-z0-9_-]"); return null; }
  for (let j = 0; j < i; j++) {
    if (items[j].name == it.name) { setError(what + " " + it.name + " is declared twice"); return null; }
  }
  const v = JSONValue.object().setString("name", it.name);
  const title = it.title;
  if (title != null) v.setString("title", title);
  v.setString("description", it.description);
  return v;
}

/** Whether `s` is a valid tool or prompt name: 1-64 characters of [A-Za-z0-9_-], the host's rule. */
export function validName(s: string): bool {
  if (s.length == 0 || s.length > 64) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x5f || c == 0x2d)) return false;
  }
  return true;
}

function schemaOf(t: Tool, what: string, text: string): JSONValue | null {
  const v = parseJSON(text);
  if (v == null) { setError("tool " + t.name + ": " + what + " is not valid JSON: " + jsonError()); return null; }
  const ty = v.get("type");
  if (!v.isObject || ty == null || !ty.isString || ty.s != "object") {
    setError("tool " + t.name + ": " + what + " must be a JSON Schema object with \"type\": \"object\"");
    return null;
  }
  return v;
}

/** The body of the list_tools export. */
export function listTools(): i32 {
  return outputListing("tools", tools.length, toolListing);
}

/** tools[i]'s entry in list_tools, or null after error_set. */
function toolListing(i: i32): JSONValue | null {
  const t = tools[i];
  const v = namedListing<Tool>(tools, i, "tool");
  if (v == null) return null;
  const input = schemaOf(t, "inputSchema", t.inputSchema);
  if (input == null) return null;
  v.set("inputSchema", input);
  const os = t.outputSchema;
  if (os != null) {
    const out = schemaOf(t, "outputSchema", os);
    if (out == null) return null;
    v.set("outputSchema", out);
  }
  const an = t.annotations;
  if (an != null) {
    const a = parseJSON(an);
    if (a == null) { setError("tool " + t.name + ": annotations are not valid JSON: " + jsonError()); return null; }
    v.set("annotations", a);
  }
  const task = t.task;
  if (task != null) {
    if (task != "optional" && task != "required") {
      setError("tool " + t.name + ": task mode must be \"optional\" or \"required\", not \"" + task + "\""); return null;
    }
    const e = JSONValue.object().setString("taskSupport", task);
    if (t.taskInputFirst) e.setBool("inputFirst", true);
    v.set("execution", e);
  } else if (t.taskInputFirst) {
    setError("tool " + t.name + ": withTaskInputFirst without withTask"); return null;
  }
  return v;
}

/** The body of the call_tool export. */
export function callTool(): i32 {
  const env = readNamed("call_tool", "name", true);
  if (env == null) return 1;
  const call = new Call(env.name, env.args, env.request.get("_meta"), env.context);
  let result: ToolResult | null = null;
  for (let i = 0; i < tools.length; i++) {
    if (tools[i].name == env.name) {
      const handler = tools[i].handler;
      result = handler(call);
      break;
    }
  }
  if (result == null) result = ToolResult.error("unknown tool \"" + env.name + "\"");
  const argError = call.argError;
  if (argError != null) result = ToolResult.error(argError);
  outputString(result.toJSON().stringify());
  return 0;
}
