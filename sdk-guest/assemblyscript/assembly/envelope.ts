// The input every ABI export but the legacy ones receives:
// {"request": <MCP params>, "context": Context} (ABI.md §2 and §5), and the
// context accessors the handlers' request objects share.

import { JSONValue, parseJSON, jsonError, stringField, stringOr } from "./json";
import { inputString, outputString, setError } from "./host";

/** The parts of an export's input. */
export class Envelope {
  /** The envelope's parts: the MCP params object and the host's Context. */
  constructor(public request: JSONValue, public context: JSONValue) {}
}

/**
 * Reads the call's input as an envelope. On malformed input it calls
 * error_set ("mcpwasm: malformed <exportName> input: …") and returns null;
 * the export should then return 1.
 */
export function readEnvelope(exportName: string): Envelope | null {
  const env = parseJSON(inputString());
  if (env == null) {
    setError("mcpwasm: malformed " + exportName + " input: " + jsonError());
    return null;
  }
  const req = env.get("request");
  if (!env.isObject || req == null || !req.isObject) {
    setError("mcpwasm: malformed " + exportName + " input: no request object");
    return null;
  }
  const ctx = env.get("context");
  return new Envelope(req, ctx != null && ctx.isObject ? ctx : JSONValue.object());
}

/**
 * The request's "arguments" (call_tool, get_prompt): an object, {} when it is
 * absent or JSON null. Anything else calls error_set ("mcpwasm: malformed
 * <exportName> input: request.arguments is a <type>, not an object") and
 * returns null; the export should then return 1.
 */
export function argumentsOf(request: JSONValue, exportName: string): JSONValue | null {
  const args = request.get("arguments");
  if (args == null || args.isNull) return JSONValue.object();
  if (args.isObject) return args;
  setError("mcpwasm: malformed " + exportName + " input: request.arguments is a " + args.typeName() + ", not an object");
  return null;
}

/** An envelope whose request names its target, read by [readNamed]. */
export class Named extends Envelope {
  /** The envelope, the request's "name" or "uri", and its arguments. */
  constructor(request: JSONValue, context: JSONValue, public name: string, public args: JSONValue) {
    super(request, context);
  }
}

/**
 * Reads the call's input as an envelope whose request names its target with
 * the string `field` ("name" for call_tool and get_prompt, "uri" for
 * read_resource) and, with `withArgs`, carries "arguments" ([argumentsOf];
 * {} without). On malformed input, or without the field ("mcpwasm:
 * malformed <exportName> input: no request.<field>"), it calls error_set and
 * returns null; the export should then return 1.
 */
export function readNamed(exportName: string, field: string, withArgs: bool): Named | null {
  const env = readEnvelope(exportName);
  if (env == null) return null;
  const name = stringField(env.request, field);
  if (name == null) {
    setError("mcpwasm: malformed " + exportName + " input: no request." + field);
    return null;
  }
  let args = JSONValue.object();
  if (withArgs) {
    const a = argumentsOf(env.request, exportName);
    if (a == null) return null;
    args = a;
  }
  return new Named(env.request, env.context, name, args);
}

/** Outputs a list export's answer, {key: list}, and returns 0 (success). */
export function outputList(key: string, list: JSONValue): i32 {
  outputString(JSONValue.object().set(key, list).stringify());
  return 0;
}

/**
 * Answers a list export with {key: [entry(0), ..., entry(n - 1)]} and
 * returns 0; when an entry is null (its declaration is wrong, and entry
 * called error_set) it returns 1 instead.
 */
export function outputListing(key: string, n: i32, entry: (i: i32) => JSONValue | null): i32 {
  const list = JSONValue.array();
  for (let i = 0; i < n; i++) {
    const v = entry(i);
    if (v == null) return 1;
    list.push(v);
  }
  return outputList(key, list);
}

/**
 * What every handler's request carries: the host's Context (ABI.md §2) and
 * the request's _meta.
 */
export class Request {
  /** The Context object the host sent: id, _meta, plugin, tool, deadline_ms, mounts. */
  context: JSONValue;
  /** The MCP request's _meta (JSON null when absent). */
  meta: JSONValue;

  /** A request with the host's Context and the MCP request's _meta. */
  constructor(context: JSONValue, meta: JSONValue | null) {
    this.context = context;
    this.meta = meta == null ? JSONValue.null() : meta;
  }

  /** The plugin's configured name. */
  get plugin(): string { return stringOr(this.context, "plugin", ""); }
  /** Milliseconds before the host stops this call, or -1 if it did not say. */
  get deadlineMs(): i64 { const d = this.context.get("deadline_ms"); return d != null && d.isNumber ? <i64>d.n : -1; }
  /** The folders the operator granted (context.mounts): objects with path and read_only. */
  get mounts(): JSONValue { const m = this.context.get("mounts"); return m != null && m.isArray ? m : JSONValue.array(); }
}
