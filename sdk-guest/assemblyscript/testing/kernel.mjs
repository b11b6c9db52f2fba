// A small in-process stand-in for the Extism kernel and mcpwasm's host
// functions, so plugins can be tested under Node without the Go host:
//
//   import { loadPlugin } from "@mcpwasm/sdk/testing/kernel.mjs";
//   const p = await loadPlugin(readFileSync("plugin.wasm"), {
//     config: { key: "v" },
//     host: { create_message: (params) => ({ role: "assistant", model: "m", content: { type: "text", text: "hi" } }) },
//   });
//   const r = await p.callTool("hello", { name: "Ada" });  // { rc, trap, output, error, notes }
//
// Every call gets a fresh instance, as under mcpwasm. WASI is not provided.
// `notes` lists the host functions the guest called, in order, as
// { function, payload } (payload is the parsed JSON, or undefined).
//
// `host` answers the host functions that return something: create_message,
// create_elicitation (given the parsed params) and list_roots (given
// nothing). Each returns the result object, or { error: { message } } as the
// real host does when it cannot make the request. One left out answers
// { error: { message: "<function>: not provided by the test kernel" } }.

const enc = new TextEncoder();
const dec = new TextDecoder();

const ANSWERING = ["create_message", "create_elicitation", "list_roots"];
const NOTIFYING = ["notify_progress", "notify_logging_message", "notify_resource_updated",
  "notify_tool_list_changed", "notify_resource_list_changed", "notify_prompt_list_changed",
  "notify_url_elicitation_completed"];

function kernel(input, config, host) {
  const blocks = new Map(); // offset (BigInt) -> Uint8Array
  let next = 1n;
  const st = { output: null, error: null, notes: [] };
  const alloc = (n) => { const o = next; next += BigInt(Number(n) + 8); blocks.set(o, new Uint8Array(Number(n))); return o; };
  const find = (addr) => {
    for (const [o, b] of blocks) if (addr >= o && addr < o + BigInt(b.length)) return [b, Number(addr - o)];
    throw new Error("kernel: bad address " + addr);
  };
  const read = (o) => {
    if (!blocks.has(o)) throw new Error("kernel: no block at " + o);
    return dec.decode(blocks.get(o));
  };
  const put = (s) => { const b = enc.encode(s); const o = alloc(b.length); blocks.get(o).set(b); return o; };
  const view = (b, i) => new DataView(b.buffer, b.byteOffset + i, 8);
  const inp = enc.encode(input);
  const env = {
    input_length: () => BigInt(inp.length),
    input_load_u8: (i) => inp[Number(i)],
    input_load_u64: (i) => view(inp, Number(i)).getBigUint64(0, true),
    length: (o) => BigInt(blocks.get(o)?.length ?? 0),
    alloc,
    free: (o) => { blocks.delete(o); },
    store_u8: (a, v) => { const [b, i] = find(a); b[i] = v; },
    store_u64: (a, v) => { const [b, i] = find(a); view(b, i).setBigUint64(0, v, true); },
    load_u8: (a) => { const [b, i] = find(a); return b[i]; },
    load_u64: (a) => { const [b, i] = find(a); return view(b, i).getBigUint64(0, true); },
    output_set: (o, n) => { st.output = dec.decode(blocks.get(o).subarray(0, Number(n))); },
    error_set: (o) => { st.error = read(o); },
    config_get: (o) => (Object.hasOwn(config, read(o)) ? put(config[read(o)]) : 0n),
    var_get: () => 0n,
    var_set: () => {},
    log_info: () => {}, log_warn: () => {}, log_debug: () => {}, log_error: () => {},
  };
  // A handle passed in becomes the host's: read it, then free it.
  const take = (o) => { const v = JSON.parse(read(o)); blocks.delete(o); return v; };
  const user = {};
  for (const fn of NOTIFYING) {
    user[fn] = (...a) => { st.notes.push({ function: fn, payload: a.length ? take(a[0]) : undefined }); };
  }
  for (const fn of ANSWERING) {
    user[fn] = (...a) => {
      const payload = a.length ? take(a[0]) : undefined;
      st.notes.push({ function: fn, payload });
      const answer = host[fn] ? host[fn](payload) : { error: { message: fn + ": not provided by the test kernel" } };
      return put(typeof answer === "string" ? answer : JSON.stringify(answer));
    };
  }
  return { st, imports: { "extism:host/env": env, "extism:host/user": user } };
}

/**
 * Compiles `wasm` and returns helpers that call its exports, each in a fresh
 * instance: call(export, input) and one helper per ABI export. Each resolves
 * to { rc, trap, output (parsed JSON when it is JSON), error, notes }.
 */
export async function loadPlugin(wasm, { config = {}, host = {} } = {}) {
  const mod = await WebAssembly.compile(wasm);
  async function call(exportName, input = "") {
    const k = kernel(input, config, host);
    const inst = await WebAssembly.instantiate(mod, k.imports);
    if (typeof inst.exports[exportName] !== "function") throw new Error("the plugin does not export " + exportName);
    let rc = null, trap = null;
    try { rc = inst.exports[exportName](); } catch (e) { trap = e; }
    let output = k.st.output;
    try { if (output != null) output = JSON.parse(output); } catch { /* not JSON: keep the text */ }
    return { rc, trap, output, error: k.st.error, notes: k.st.notes };
  }
  const envelope = (request, context = {}) => JSON.stringify({ request, context: { plugin: "test", ...context } });
  return {
    call,
    /** The export names and the imports ("module.name") of the module. */
    exports: WebAssembly.Module.exports(mod).map((e) => e.name),
    imports: WebAssembly.Module.imports(mod).map((i) => i.module + "." + i.name),
    listTools: () => call("list_tools", envelope({})),
    callTool: (name, args = {}, context = {}) =>
      call("call_tool", envelope({ name, arguments: args }, { tool: name, ...context })),
    listResources: () => call("list_resources", envelope({})),
    listResourceTemplates: () => call("list_resource_templates", envelope({})),
    readResource: (uri, context = {}) => call("read_resource", envelope({ uri }, context)),
    listPrompts: () => call("list_prompts", envelope({})),
    getPrompt: (name, args, context = {}) =>
      call("get_prompt", envelope(args === undefined ? { name } : { name, arguments: args }, context)),
    /** ref: { type: "ref/prompt", name } or { type: "ref/resource", uri }; resolved: params.context.arguments. */
    complete: (ref, name, value, resolved) =>
      call("complete", envelope(resolved ? { ref, argument: { name, value }, context: { arguments: resolved } }
        : { ref, argument: { name, value } })),
  };
}
