// Resources and resource templates (ABI.md §5): registration, the
// list_resources, list_resource_templates and read_resource bodies, the
// ReadRequest a handler receives and the ResourceResult it returns.

import { JSONValue, parseJSON, jsonError } from "./json";
import { Request, outputListing, readNamed } from "./envelope";
import { outputString, setError } from "./host";
import { base64 } from "./tool";
import { URITemplate } from "./uritemplate";
import { Completer, addCompletion } from "./completion";

/** A resource handler: return contents, ResourceResult.notFound(uri) or ResourceResult.error(message). */
export type ResourceHandler = (req: ReadRequest) => ResourceResult;

/** A concrete resource, listed by list_resources. */
export class Resource {
  title: string | null = null;
  description: string | null = null;
  mimeType: string | null = null;
  /** Size in bytes, or -1 when not said. */
  size: i64 = -1;
  annotations: string | null = null;

  /** A resource at `uri`; prefer registerResource. */
  constructor(public uri: string, public name: string, public handler: ResourceHandler) {}

  /** Sets title. */
  withTitle(title: string): Resource { this.title = title; return this; }
  /** Sets description. */
  withDescription(d: string): Resource { this.description = d; return this; }
  /** Sets mimeType; contents a read returns without one get it. */
  withMimeType(m: string): Resource { this.mimeType = m; return this; }
  /** Sets size (bytes). */
  withSize(bytes: i64): Resource { this.size = bytes; return this; }
  /** MCP annotations as JSON text, e.g. `{"audience":["user"],"priority":0.5}`. */
  withAnnotations(json: string): Resource { this.annotations = json; return this; }
}

/** A resource template, listed by list_resource_templates; reads of matching URIs reach its handler. */
export class ResourceTemplate {
  title: string | null = null;
  description: string | null = null;
  mimeType: string | null = null;
  annotations: string | null = null;
  private parsedCache: URITemplate | null = null;

  /** A template (RFC 6570); prefer registerResourceTemplate. */
  constructor(public uriTemplate: string, public name: string, public handler: ResourceHandler) {}

  /**
   * The parsed template (check its `error`). It is parsed on first use, so an
   * export that never reads templates does not parse them.
   */
  get parsed(): URITemplate {
    let p = this.parsedCache;
    if (p == null) { p = new URITemplate(this.uriTemplate); this.parsedCache = p; }
    return p;
  }

  /** Sets title. */
  withTitle(title: string): ResourceTemplate { this.title = title; return this; }
  /** Sets description. */
  withDescription(d: string): ResourceTemplate { this.description = d; return this; }
  /** Sets mimeType; contents a read returns without one get it. */
  withMimeType(m: string): ResourceTemplate { this.mimeType = m; return this; }
  /** MCP annotations as JSON text. */
  withAnnotations(json: string): ResourceTemplate { this.annotations = json; return this; }
  /** Completes the template variable `variable` to those of `values` that start with what was typed. */
  withCompletion(variable: string, values: string[]): ResourceTemplate {
    addCompletion("ref/resource", this.uriTemplate, variable, values, null);
    return this;
  }
  /** Completes the template variable `variable` with a handler. */
  withCompleter(variable: string, handler: Completer): ResourceTemplate {
    addCompletion("ref/resource", this.uriTemplate, variable, [], handler);
    return this;
  }
}

// @ts-ignore: decorator
@lazy const resources = new Array<Resource>();
// @ts-ignore: decorator
@lazy const templates = new Array<ResourceTemplate>();

/** Declares a resource. Call it at the top level of your entry file. */
export function registerResource(uri: string, name: string, handler: ResourceHandler): Resource {
  const r = new Resource(uri, name, handler);
  resources.push(r);
  return r;
}

/**
 * Declares a resource template such as `file:///{+path}` or
 * `weather://{city}/today`. A read whose URI matches gets the template's
 * variables in ReadRequest.vars. Call it at the top level of your entry file.
 */
export function registerResourceTemplate(uriTemplate: string, name: string, handler: ResourceHandler): ResourceTemplate {
  const t = new ResourceTemplate(uriTemplate, name, handler);
  templates.push(t);
  return t;
}

/** One resources/read request. */
export class ReadRequest extends Request {
  /** The URI being read. */
  uri: string = "";
  /** The matched template, or "" when the URI is a declared resource. */
  template: string = "";
  /** The template's variables (empty for a declared resource). */
  vars: Map<string, string> = new Map();
  /** The declared mimeType, or "". */
  mimeType: string = "";

  /** A template variable, or `dflt` when the URI leaves it out. */
  var(name: string, dflt: string = ""): string { return this.vars.has(name) ? this.vars.get(name) : dflt; }
  /** Whether the URI sets a template variable. */
  hasVar(name: string): bool { return this.vars.has(name); }
}

/** One content of a ResourceResult: text or blob, with an optional URI and MIME type. */
export class ResourceContent {
  /**
   * A content: its URI and MIME type (null to use the URI read and the declared
   * type), and either its text or its blob (base64); the other is null.
   */
  constructor(public uri: string | null, public mimeType: string | null, public text: string | null, public blob: string | null) {}
}

/**
 * An MCP ReadResourceResult under construction, or a failure. Contents
 * without a URI get the URI that was read; without a mimeType, the declared
 * one.
 */
export class ResourceResult {
  /** The contents added so far, in order. */
  contents: ResourceContent[] = [];
  /** The failure message, or null for contents. */
  failure: string | null = null;

  /** One text content. */
  static text(text: string, mimeType: string | null = null): ResourceResult { return new ResourceResult().withText(text, mimeType); }
  /** One blob content (sent as base64). */
  static blob(data: Uint8Array, mimeType: string | null = null): ResourceResult { return new ResourceResult().withBlob(data, mimeType); }
  /** The read fails; the client gets a JSON-RPC internal error carrying `message`. */
  static error(message: string): ResourceResult { const r = new ResourceResult(); r.failure = message; return r; }
  /** The read fails with resource-not-found (the message contains "not found"). */
  static notFound(uri: string): ResourceResult { return ResourceResult.error("resource " + uri + " not found"); }

  /** Appends a text content; `uri` defaults to the URI read. */
  withText(text: string, mimeType: string | null = null, uri: string | null = null): ResourceResult {
    this.contents.push(new ResourceContent(uri, mimeType, text, null));
    return this;
  }
  /** Appends a blob content; `uri` defaults to the URI read. */
  withBlob(data: Uint8Array, mimeType: string | null = null, uri: string | null = null): ResourceResult {
    this.contents.push(new ResourceContent(uri, mimeType, null, base64(data)));
    return this;
  }

  /** The ReadResourceResult for a read of `uri` declared with `mimeType` ("" for none). */
  toJSON(uri: string, mimeType: string): JSONValue {
    const list = JSONValue.array();
    for (let i = 0; i < this.contents.length; i++) {
      const c = this.contents[i];
      const u = c.uri;
      const m = c.mimeType;
      const v = JSONValue.object().setString("uri", u != null ? u : uri);
      if (m != null) v.setString("mimeType", m);
      else if (mimeType.length > 0) v.setString("mimeType", mimeType);
      const text = c.text;
      const blob = c.blob;
      if (text != null) v.setString("text", text);
      if (blob != null) v.setString("blob", blob);
      list.push(v);
    }
    return JSONValue.object().set("contents", list);
  }
}

/** Adds the optional fields every listing shares; false after error_set. */
function describe(v: JSONValue, what: string, title: string | null, description: string | null,
  mimeType: string | null, annotations: string | null): bool {
  if (title != null) v.setString("title", title);
  if (description != null) v.setString("description", description);
  if (mimeType != null) v.setString("mimeType", mimeType);
  if (annotations != null) {
    const a = parseJSON(annotations);
    if (a == null || !a.isObject) {
      setError(what + ": annotations are not a JSON object: " + (a == null ? jsonError() : a.typeName()));
      return false;
    }
    v.set("annotations", a);
  }
  return true;
}

/** The body of the list_resources export. */
export function listResources(): i32 {
  return outputListing("resources", resources.length, resourceListing);
}

/** resources[i]'s entry in list_resources, or null after error_set. */
function resourceListing(i: i32): JSONValue | null {
  const r = resources[i];
  if (r.uri.length == 0 || r.name.length == 0) { setError("resource #" + i.toString() + " needs a uri and a name"); return null; }
  for (let j = 0; j < i; j++) {
    if (resources[j].uri == r.uri) { setError("resource " + r.uri + " is declared twice"); return null; }
  }
  const v = JSONValue.object().setString("uri", r.uri).setString("name", r.name);
  if (!describe(v, "resource " + r.uri, r.title, r.description, r.mimeType, r.annotations)) return null;
  if (r.size >= 0) v.setNumber("size", <f64>r.size);
  return v;
}

/** The body of the list_resource_templates export. */
export function listResourceTemplates(): i32 {
  return outputListing("resourceTemplates", templates.length, templateListing);
}

/** templates[i]'s entry in list_resource_templates, or null after error_set. */
function templateListing(i: i32): JSONValue | null {
  const t = templates[i];
  if (t.name.length == 0) { setError("resource template " + t.uriTemplate + " needs a name"); return null; }
  if (t.uriTemplate.length == 0 || t.parsed.error.length > 0) {
    setError("resource template \"" + t.uriTemplate + "\" is not a valid URI template: " +
      (t.uriTemplate.length == 0 ? "it is empty" : t.parsed.error));
    return null;
  }
  for (let j = 0; j < i; j++) {
    if (templates[j].uriTemplate == t.uriTemplate) { setError("resource template " + t.uriTemplate + " is declared twice"); return null; }
  }
  const v = JSONValue.object().setString("uriTemplate", t.uriTemplate).setString("name", t.name);
  if (!describe(v, "resource template " + t.uriTemplate, t.title, t.description, t.mimeType, t.annotations)) return null;
  return v;
}

/**
 * The body of the read_resource export: a declared resource with this URI,
 * else the first template (in registration order) that matches it.
 */
export function readResource(): i32 {
  const env = readNamed("read_resource", "uri", false);
  if (env == null) return 1;
  const uri = env.name;
  const req = new ReadRequest(env.context, env.request.get("_meta"));
  req.uri = uri;
  let handler: ResourceHandler | null = null;
  let mime: string | null = null;
  for (let i = 0; i < resources.length && handler == null; i++) {
    if (resources[i].uri == uri) { handler = resources[i].handler; mime = resources[i].mimeType; }
  }
  for (let i = 0; i < templates.length && handler == null; i++) {
    const vars = templates[i].parsed.match(uri);
    if (vars == null) continue;
    handler = templates[i].handler;
    mime = templates[i].mimeType;
    req.template = templates[i].uriTemplate;
    req.vars = vars;
  }
  if (handler == null) { setError(ResourceResult.notFound(uri).failure!); return 1; }
  if (mime != null) req.mimeType = mime;
  const result = handler(req);
  const failure = result.failure;
  if (failure != null) { setError(failure); return 1; }
  if (result.contents.length == 0) { setError("reading " + uri + " returned no contents"); return 1; }
  outputString(result.toJSON(uri, req.mimeType).stringify());
  return 0;
}
