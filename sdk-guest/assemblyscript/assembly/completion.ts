// Argument completion (completion/complete, ABI.md §5): a prompt's or a
// resource template's builder attaches candidates to one of its arguments,
// and the `complete` export answers from them.

import { JSONValue, stringField, stringOr } from "./json";
import { Envelope, Request, readEnvelope } from "./envelope";
import { outputString, setError } from "./host";

/** MCP caps a completion at 100 values. */
export const MAX_COMPLETION_VALUES: i32 = 100;

/** A completion handler. A top-level function (AssemblyScript has no closures). */
export type Completer = (req: CompleteRequest) => Completion;

/** One completion/complete request. */
export class CompleteRequest extends Request {
  /** The ref's type: "ref/prompt" or "ref/resource". */
  refType: string = "";
  /** The prompt's declared name (ref/prompt), else "". */
  name: string = "";
  /** The resource template (ref/resource), else "". */
  uri: string = "";
  /** The argument being completed. */
  argument: string = "";
  /** What the user has typed so far. */
  value: string = "";
  /** Arguments the client already resolved (params.context.arguments), an object. */
  resolved: JSONValue = JSONValue.object();

  /** An already-resolved argument, or `dflt`. */
  resolvedArg(name: string, dflt: string = ""): string { return stringOr(this.resolved, name, dflt); }
}

/** An MCP completion: values, and optionally total and hasMore. */
export class Completion {
  /** The suggested values, best first. */
  values: string[] = [];
  /** How many values exist in all, or -1 when not said. */
  total: i32 = -1;
  /** Whether there are more values than these. */
  hasMore: bool = false;

  /** These values. More than 100 are cut to 100 with hasMore set. */
  static of(values: string[]): Completion { const c = new Completion(); c.values = values; return c; }
  /** No suggestions. */
  static none(): Completion { return new Completion(); }
  /** The candidates that start with `prefix` (case-sensitive), in their order. */
  static matching(prefix: string, candidates: string[]): Completion {
    const out = new Array<string>();
    for (let i = 0; i < candidates.length; i++) if (candidates[i].startsWith(prefix)) out.push(candidates[i]);
    return Completion.of(out);
  }
  /** Sets total. */
  withTotal(total: i32): Completion { this.total = total; return this; }
  /** Sets hasMore. */
  withHasMore(more: bool): Completion { this.hasMore = more; return this; }

  /** The CompleteResult. */
  toJSON(): JSONValue {
    const vs = JSONValue.array();
    const n = this.values.length;
    for (let i = 0; i < n && i < MAX_COMPLETION_VALUES; i++) vs.push(JSONValue.string(this.values[i]));
    const c = JSONValue.object().set("values", vs);
    let total = this.total;
    if (n > MAX_COMPLETION_VALUES && total < n) total = n;
    if (total >= 0) c.setNumber("total", <f64>total);
    if (this.hasMore || n > MAX_COMPLETION_VALUES) c.setBool("hasMore", true);
    return JSONValue.object().set("completion", c);
  }
}

class Target {
  constructor(public refType: string, public key: string, public argument: string,
    public values: string[], public handler: Completer | null) {}
}

// @ts-ignore: decorator
@lazy const targets = new Array<Target>();

/**
 * Attaches completions to an argument of a prompt (refType "ref/prompt",
 * key its name) or a resource template ("ref/resource", key the template).
 * With a handler the values are ignored; without one, `values` are filtered
 * by prefix. Used by Prompt and ResourceTemplate's builders.
 */
export function addCompletion(refType: string, key: string, argument: string, values: string[], handler: Completer | null): void {
  targets.push(new Target(refType, key, argument, values, handler));
}

/** The body of the complete export: params {ref, argument, context?} -> CompleteResult. */
export function completeExport(): i32 {
  const env: Envelope | null = readEnvelope("complete");
  if (env == null) return 1;
  const p = env.request;
  const ref = p.get("ref");
  const arg = p.get("argument");
  const refType = stringField(ref, "type");
  const argName = stringField(arg, "name");
  if (refType == null || argName == null) { // null also when ref or argument is absent
    setError("mcpwasm: malformed complete input: want ref.type and argument.name");
    return 1;
  }
  const req = new CompleteRequest(env.context, p.get("_meta"));
  req.refType = refType;
  req.name = stringOr(ref, "name", "");
  req.uri = stringOr(ref, "uri", "");
  req.argument = argName;
  req.value = stringOr(arg, "value", "");
  const ctx = p.get("context");
  if (ctx != null) {
    const resolved = ctx.get("arguments");
    if (resolved != null && resolved.isObject) req.resolved = resolved;
  }
  const key = refType == "ref/prompt" ? req.name : req.uri;
  let result = Completion.none();
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i];
    if (t.refType != refType || t.key != key || t.argument != argName) continue;
    const h = t.handler;
    result = h != null ? h(req) : Completion.matching(req.value, t.values);
    break;
  }
  outputString(result.toJSON().stringify());
  return 0;
}
