// Prompts (ABI.md §5): registration, the list_prompts and get_prompt
// bodies, the PromptRequest a handler receives and the PromptResult it
// returns.

import { JSONValue, stringField, stringOr } from "./json";
import { Request, outputListing, readNamed } from "./envelope";
import { outputString, setError } from "./host";
import { namedListing } from "./tool";
import { textBlock } from "./client";
import { Completer, addCompletion } from "./completion";

/** A prompt handler: return messages, or PromptResult.error(message). */
export type PromptHandler = (req: PromptRequest) => PromptResult;

/** One declared argument of a prompt. */
export class PromptArgument {
  /** An argument: its name, description ("" for none) and whether get_prompt needs it. */
  constructor(public name: string, public description: string, public required: bool) {}
}

/** A prompt, listed by list_prompts. */
export class Prompt {
  title: string | null = null;
  arguments: PromptArgument[] = [];

  /** A prompt; prefer registerPrompt. */
  constructor(public name: string, public description: string, public handler: PromptHandler) {}

  /** Sets title. */
  withTitle(title: string): Prompt { this.title = title; return this; }
  /**
   * Declares an argument. When a required one is missing, get_prompt fails
   * with "prompt <name>: argument <arg> is required" before the handler runs.
   */
  withArgument(name: string, description: string = "", required: bool = false): Prompt {
    this.arguments.push(new PromptArgument(name, description, required));
    return this;
  }
  /** Completes argument `argument` to those of `values` that start with what was typed. */
  withCompletion(argument: string, values: string[]): Prompt {
    addCompletion("ref/prompt", this.name, argument, values, null);
    return this;
  }
  /** Completes argument `argument` with a handler. */
  withCompleter(argument: string, handler: Completer): Prompt {
    addCompletion("ref/prompt", this.name, argument, [], handler);
    return this;
  }
}

// @ts-ignore: decorator
@lazy const prompts = new Array<Prompt>();

/**
 * Declares a prompt. Call it at the top level of your entry file. Clients
 * see it as `<plugin>_<name>` unless the plugin is loaded unprefixed; the
 * handler always sees `name`.
 */
export function registerPrompt(name: string, description: string, handler: PromptHandler): Prompt {
  const p = new Prompt(name, description, handler);
  prompts.push(p);
  return p;
}

/** One prompts/get request. */
export class PromptRequest extends Request {
  /** The prompt's declared name. */
  name: string = "";
  /** The arguments, an object of strings. */
  args: JSONValue = JSONValue.object();

  /** An argument, or `dflt` when it is absent. */
  arg(name: string, dflt: string = ""): string { return stringOr(this.args, name, dflt); }
  /** Whether the argument is present. */
  has(name: string): bool { return stringField(this.args, name) != null; }
}

/** An MCP GetPromptResult under construction, or a failure. */
export class PromptResult {
  /** The description sent with the messages, or null for none. */
  description: string | null = null;
  /** The messages so far, in order: objects with role and content (a content block). */
  messages: JSONValue[] = [];
  /** The failure message, or null. */
  failure: string | null = null;

  /** A result with this description (null for none); add messages with user() and assistant(). */
  constructor(description: string | null = null) { this.description = description; }
  /** get_prompt fails; the client gets a JSON-RPC error carrying `message`. */
  static error(message: string): PromptResult { const r = new PromptResult(); r.failure = message; return r; }

  /** Sets description. */
  withDescription(d: string): PromptResult { this.description = d; return this; }
  /** Appends a message with any content block (text, image, audio, resource_link, resource). */
  withMessage(role: string, content: JSONValue): PromptResult {
    this.messages.push(JSONValue.object().setString("role", role).set("content", content));
    return this;
  }
  /** Appends a user text message. */
  user(text: string): PromptResult { return this.withMessage("user", textBlock(text)); }
  /** Appends an assistant text message. */
  assistant(text: string): PromptResult { return this.withMessage("assistant", textBlock(text)); }

  /** The GetPromptResult. */
  toJSON(): JSONValue {
    const ms = JSONValue.array();
    for (let i = 0; i < this.messages.length; i++) ms.push(this.messages[i]);
    const v = JSONValue.object();
    const d = this.description;
    if (d != null) v.setString("description", d);
    return v.set("messages", ms);
  }
}

/** The body of the list_prompts export. */
export function listPrompts(): i32 {
  return outputListing("prompts", prompts.length, promptListing);
}

/** prompts[i]'s entry in list_prompts, or null after error_set. */
function promptListing(i: i32): JSONValue | null {
  const p = prompts[i];
  const v = namedListing<Prompt>(prompts, i, "prompt");
  if (v == null) return null;
  const args = JSONValue.array();
  for (let k = 0; k < p.arguments.length; k++) {
    const a = p.arguments[k];
    const av = JSONValue.object().setString("name", a.name);
    if (a.description.length > 0) av.setString("description", a.description);
    if (a.required) av.setBool("required", true);
    args.push(av);
  }
  if (args.length > 0) v.set("arguments", args);
  return v;
}

/** The body of the get_prompt export. */
export function getPrompt(): i32 {
  const env = readNamed("get_prompt", "name", true);
  if (env == null) return 1;
  const name = env.name;
  const args = env.args;
  let prompt: Prompt | null = null;
  for (let i = 0; i < prompts.length; i++) if (prompts[i].name == name) { prompt = prompts[i]; break; }
  if (prompt == null) { setError("prompt " + name + " not found"); return 1; }
  const values = args.items!;
  for (let k = 0; k < values.length; k++) {
    if (!values[k].isString) {
      setError("prompt " + name + ": argument " + args.keyAt(k) + " must be a string, got " + values[k].typeName());
      return 1;
    }
  }
  for (let k = 0; k < prompt.arguments.length; k++) {
    const a = prompt.arguments[k];
    if (a.required && stringField(args, a.name) == null) { setError("prompt " + name + ": argument " + a.name + " is required"); return 1; }
  }
  const req = new PromptRequest(env.context, env.request.get("_meta"));
  req.name = name;
  req.args = args;
  const handler = prompt.handler;
  const result = handler(req);
  const failure = result.failure;
  if (failure != null) { setError(failure); return 1; }
  outputString(result.toJSON().stringify());
  return 0;
}
