// The host side of a call: input and output through the Extism kernel,
// error_set, config, the mcpwasm notifications (ABI.md §6) and the abort
// handler that builds wire with `--use abort=...`. The host functions that
// answer (sampling, elicitation, roots) are in client.ts.
//
// Each @external below becomes an import only if a plugin calls its wrapper:
// AssemblyScript compiles nothing that is not reached from an export.

import { Config, Host, Memory } from "@extism/as-pdk";
import { error_set } from "@extism/as-pdk/lib/env";
import { JSONValue } from "./json";

// @ts-ignore: decorator
@external("extism:host/user", "notify_progress")
declare function notify_progress(handle: u64): void;

// @ts-ignore: decorator
@external("extism:host/user", "notify_logging_message")
declare function notify_logging_message(handle: u64): void;

// @ts-ignore: decorator
@external("extism:host/user", "notify_resource_updated")
declare function notify_resource_updated(handle: u64): void;

// @ts-ignore: decorator
@external("extism:host/user", "notify_tool_list_changed")
declare function notify_tool_list_changed(): void;

// @ts-ignore: decorator
@external("extism:host/user", "notify_resource_list_changed")
declare function notify_resource_list_changed(): void;

// @ts-ignore: decorator
@external("extism:host/user", "notify_prompt_list_changed")
declare function notify_prompt_list_changed(): void;

// @ts-ignore: decorator
@external("extism:host/user", "notify_url_elicitation_completed")
declare function notify_url_elicitation_completed(handle: u64): void;

/** The call's input as a string (the kernel is read 8 bytes at a time). */
export function inputString(): string {
  return String.UTF8.decode(Host.input().buffer);
}

/** Sets the call's output. (as-pdk's Host.outputString miscounts non-ASCII text.) */
export function outputString(s: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(s)));
}

/** Sets the message the host reports when an export returns non-zero. */
export function setError(message: string): void {
  error_set(Memory.allocateString(message).offset);
}

/** A value from the plugin's `config` table in the operator's TOML file, or null. */
export function config(key: string): string | null {
  return Config.get(key);
}

/**
 * Sends notifications/progress for the current request; the host adds the
 * client's progress token, and does nothing if the client sent none.
 * Pass NaN as `total` when it is unknown.
 */
export function progress(progress: f64, total: f64 = NaN, message: string | null = null): void {
  const v = JSONValue.object().setNumber("progress", progress);
  if (!isNaN(total)) v.setNumber("total", total);
  if (message != null) v.setString("message", message);
  notify_progress(handleOf(v));
}

/**
 * Sends notifications/message to the client if its level allows.
 * `level` is an MCP level: debug, info, notice, warning, error, critical, alert, emergency.
 */
export function log(level: string, data: JSONValue, logger: string | null = null): void {
  const v = JSONValue.object().setString("level", level);
  if (logger != null) v.setString("logger", logger);
  v.set("data", data);
  notify_logging_message(handleOf(v));
}

/** log() with a text message. */
export function logText(level: string, text: string): void {
  log(level, JSONValue.string(text));
}

/** A kernel block holding `payload` as JSON text; the host takes it over. */
export function handleOf(payload: JSONValue): u64 {
  return Memory.allocateString(payload.stringify()).offset;
}

/**
 * Sends notifications/resources/updated for `uri` to the clients subscribed
 * to it (resources/subscribe).
 */
export function notifyResourceUpdated(uri: string): void {
  notify_resource_updated(handleOf(JSONValue.object().setString("uri", uri)));
}

/**
 * Tells the host this plugin's tool list changed: it calls list_tools again
 * (after this call) and sends notifications/tools/list_changed.
 */
export function notifyToolListChanged(): void {
  notify_tool_list_changed();
}

/** Like notifyToolListChanged, for list_resources and list_resource_templates. */
export function notifyResourceListChanged(): void {
  notify_resource_list_changed();
}

/** Like notifyToolListChanged, for list_prompts. */
export function notifyPromptListChanged(): void {
  notify_prompt_list_changed();
}

/**
 * Sends notifications/elicitation/complete for a URL-mode elicitation this
 * plugin started with elicitURL (a no-op in stateless HTTP).
 */
export function notifyElicitationComplete(elicitationId: string): void {
  notify_url_elicitation_completed(handleOf(JSONValue.object().setString("elicitationId", elicitationId)));
}

let aborting = false;

/**
 * The abort handler: wire it with `--use abort=~lib/@mcpwasm/sdk/assembly/host/mcpwasmAbort`
 * (the SDK's plugin.asconfig.json does). It records the message with error_set and
 * traps; without it AssemblyScript imports env.abort, which Extism lacks.
 */
export function mcpwasmAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  if (!aborting) {
    aborting = true; // an abort while reporting one (out of memory) just traps
    let msg = "abort: ";
    if (message != null) msg += message;
    if (fileName != null) msg += " at " + fileName + ":" + line.toString() + ":" + column.toString();
    setError(msg);
  }
  unreachable();
}
