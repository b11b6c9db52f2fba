// Requests the guest makes of the client through the host (ABI.md §6):
// sampling (create_message), elicitation (create_elicitation) and roots
// (list_roots). Each answers a HostResult; AssemblyScript has no exceptions,
// so a request that could not be made is a result with `ok` false and the
// host's message in `error`. Check `ok` before reading the answer.
//
// Under protocol 2026-07-28 the host replays the call to deliver answers:
// make the same requests in the same order on every run, and cause side
// effects only after the last one.

import { Memory } from "@extism/as-pdk";
import { length, free } from "@extism/as-pdk/lib/env";
import { JSONValue, parseJSON, jsonError, stringField, stringOr } from "./json";
import { handleOf } from "./host";

// @ts-ignore: decorator
@external("extism:host/user", "create_message")
declare function create_message(handle: u64): u64;

// @ts-ignore: decorator
@external("extism:host/user", "create_elicitation")
declare function create_elicitation(handle: u64): u64;

// @ts-ignore: decorator
@external("extism:host/user", "list_roots")
declare function list_roots(): u64;

/** The result of type T for the JSON object in a kernel block the host returned; the block is freed. */
function answerOf<T extends HostResult>(handle: u64): T {
  if (handle == 0) return HostResult.failure<T>("the host returned no answer");
  const text = new Memory(handle, length(handle)).toString();
  free(handle);
  const v = parseJSON(text);
  if (v == null) return HostResult.failure<T>("the host's answer is not JSON: " + jsonError());
  if (!v.isObject) return HostResult.failure<T>("the host's answer is not a JSON object (got " + v.typeName() + ")");
  return instantiate<T>(v);
}

/**
 * What a host function that makes a request answered. If `ok` is false the
 * request was not made or failed (no client capability, stateless server,
 * deadline passed, the client refused) and `error` says why; otherwise
 * `value` is the MCP result object.
 */
export class HostResult {
  /** Whether the request succeeded; read `value` only when it did. */
  ok: bool = false;
  /** The host's error message when `ok` is false; "" otherwise. */
  error: string = "";
  /** The MCP result object (an empty object when `ok` is false). */
  value: JSONValue = JSONValue.object();

  /** Wraps an answer: `{"error": {"message"}}` or the result. */
  constructor(answer: JSONValue) {
    const e = answer.get("error");
    if (e == null) {
      this.ok = true;
      this.value = answer;
    } else {
      const m = e.isObject ? e.get("message") : e;
      this.error = m != null && m.isString ? m.s : e.stringify();
    }
  }

  /** A result of type T (HostResult or a subclass) with `ok` false and `message` as its error. */
  static failure<T extends HostResult>(message: string): T {
    const r = instantiate<T>(JSONValue.object());
    r.ok = false;
    r.error = message;
    return r;
  }

  /** A member of the result, or null. */
  get(key: string): JSONValue | null { return this.value.get(key); }

  /** A string member of the result, or "". */
  getString(key: string): string { return stringOr(this.value, key, ""); }
}

/** The text of a text content block, or of the first text block in an array of them; "" if none. */
function textOf(content: JSONValue | null): string {
  if (content == null) return "";
  if (content.isArray) {
    for (let i = 0; i < content.length; i++) {
      const t = textOf(content.at(i));
      if (t.length > 0) return t;
    }
    return "";
  }
  return stringField(content, "type") == "text" ? stringOr(content, "text", "") : "";
}

/**
 * MCP CreateMessageRequest params, built up: messages, maxTokens and the
 * optional fields. `set` adds any other field verbatim.
 */
export class SamplingRequest {
  /** The params object sent to the host. */
  params: JSONValue = JSONValue.object();

  /** A request for at most `maxTokens` tokens; add messages with user() and assistant(). */
  constructor(maxTokens: i32) {
    this.params.set("messages", JSONValue.array()).setNumber("maxTokens", <f64>maxTokens);
  }

  /** Appends a message with any content block (text, image, audio). */
  withMessage(role: string, content: JSONValue): SamplingRequest {
    this.params.get("messages")!.push(JSONValue.object().setString("role", role).set("content", content));
    return this;
  }
  /** Appends a user text message. */
  user(text: string): SamplingRequest { return this.withMessage("user", textBlock(text)); }
  /** Appends an assistant text message. */
  assistant(text: string): SamplingRequest { return this.withMessage("assistant", textBlock(text)); }
  /** Sets systemPrompt. */
  withSystemPrompt(prompt: string): SamplingRequest { this.params.setString("systemPrompt", prompt); return this; }
  /** Sets temperature. */
  withTemperature(t: f64): SamplingRequest { this.params.setNumber("temperature", t); return this; }
  /** Sets includeContext: "none", "thisServer" or "allServers". */
  withIncludeContext(which: string): SamplingRequest { this.params.setString("includeContext", which); return this; }
  /** Appends a stop sequence. */
  withStopSequence(s: string): SamplingRequest {
    let list = this.params.get("stopSequences");
    if (list == null) { list = JSONValue.array(); this.params.set("stopSequences", list); }
    list.push(JSONValue.string(s));
    return this;
  }
  /** Sets modelPreferences (hints, costPriority, speedPriority, intelligencePriority). */
  withModelPreferences(prefs: JSONValue): SamplingRequest { this.params.set("modelPreferences", prefs); return this; }
  /** Sets any other params field. */
  set(key: string, value: JSONValue): SamplingRequest { this.params.set(key, value); return this; }
}

/** A text content block. */
export function textBlock(text: string): JSONValue {
  return JSONValue.object().setString("type", "text").setString("text", text);
}

/** The answer to createMessage: an MCP CreateMessageResult when `ok`. */
export class SamplingResult extends HostResult {
  /** The answer's text (content.text, or the first text block); "" for other content. */
  get text(): string { return textOf(this.value.get("content")); }
  /** The answer's content: a content block, or an array of them. */
  get content(): JSONValue { const c = this.value.get("content"); return c == null ? JSONValue.null() : c; }
  /** The model that answered. */
  get model(): string { return this.getString("model"); }
  /** The answer's role, normally "assistant". */
  get role(): string { return this.getString("role"); }
  /** Why the model stopped ("endTurn", "maxTokens", …), or "". */
  get stopReason(): string { return this.getString("stopReason"); }
}

/** Asks the client's model for a completion (sampling/createMessage). */
export function createMessage(request: SamplingRequest): SamplingResult {
  return answerOf<SamplingResult>(create_message(handleOf(request.params)));
}

/** The answer to an elicitation: an MCP ElicitResult when `ok`. */
export class ElicitResult extends HostResult {
  /** "accept", "decline" or "cancel". */
  get action(): string { return this.getString("action"); }
  /** Whether the user accepted. */
  get accepted(): bool { return this.action == "accept"; }
  /** The submitted form (an object), or JSON null when there is none. */
  get content(): JSONValue {
    const c = this.value.get("content");
    return c != null && c.isObject ? c : JSONValue.null();
  }
  /** A submitted string field, or "". */
  string(key: string): string { return stringOr(this.content, key, ""); }
}

/** Sends elicitation/create with any ElicitRequest params (form or URL mode). */
export function createElicitation(params: JSONValue): ElicitResult {
  return answerOf<ElicitResult>(create_elicitation(handleOf(params)));
}

/**
 * Asks the user to fill in a form: `requestedSchema` is JSON text, a flat
 * JSON Schema object of primitive properties. Invalid JSON fails without
 * asking (`ok` false).
 */
export function elicit(message: string, requestedSchema: string): ElicitResult {
  const schema = parseJSON(requestedSchema);
  if (schema == null) return HostResult.failure<ElicitResult>("requestedSchema is not valid JSON: " + jsonError());
  return createElicitation(JSONValue.object().setString("message", message).set("requestedSchema", schema));
}

/**
 * Asks the user to visit `url` (URL-mode elicitation). When the flow there
 * completes, call notifyElicitationComplete(elicitationId).
 */
export function elicitURL(message: string, url: string, elicitationId: string): ElicitResult {
  return createElicitation(JSONValue.object().setString("mode", "url").setString("message", message)
    .setString("url", url).setString("elicitationId", elicitationId));
}

/** One of the client's roots. */
export class Root {
  /** A root: its URI (file://…) and optional name ("" if none). */
  constructor(public uri: string, public name: string) {}
}

/** The answer to listRoots: an MCP ListRootsResult when `ok`. */
export class RootsResult extends HostResult {
  /** The roots, in the client's order; empty when not `ok`. */
  get roots(): Root[] {
    const out = new Array<Root>();
    const list = this.value.get("roots");
    if (list == null) return out;
    for (let i = 0; i < list.length; i++) {
      const r = list.at(i);
      const uri = stringField(r, "uri");
      if (uri != null) out.push(new Root(uri, stringOr(r, "name", "")));
    }
    return out;
  }
}

/** Asks the client for its roots (roots/list). */
export function listRoots(): RootsResult {
  return answerOf<RootsResult>(list_roots());
}
