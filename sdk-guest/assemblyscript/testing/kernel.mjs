// A small in-process stand-in for the Extism kernel and mcpwasm's host
// functions, so plugins can be tested under Node without the Go host:
//
//   import { loadPlugin } from "@mcpwasm/sdk/testing/kernel.mjs";
//   const p = await loadPlugin(readFileSync("plugin.wasm"), { config: { key: "v" } });
//   const r = await p.callTool("hello", { name: "Ada" });  // { rc, trap, output, error, notes }
//
// Every call gets a fresh instance, as under mcpwasm. WASI is not provided.

const enc = new TextEncoder();
const dec = new TextDecoder();

function kernel(input, config) {
  const blocks = new Map(); // offset (BigInt) -> Uint8Array
  let next = 1n;
  const st = { output: null, error: null, notes: [] };
  const alloc = (n) => { const o = next; next += BigInt(Number(n) + 8); blocks.set(o, new Uint8Array(Number(n))); return o; };
  const find = (addr) => {
    for (const [o, b] of blocks) if (addr >= o && addr < o + BigInt(b.length)) return [b, Number(addr - o)];
    throw new Error("kernel: bad address " + addr);
  };
  const read = (o) => dec.decode(blocks.get(o));
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
  const user = {
    notify_progress: (o) => { st.notes.push({ function: "notify_progress", payload: JSON.parse(read(o)) }); },
    notify_logging_message: (o) => { st.notes.push({ function: "notify_logging_message", payload: JSON.parse(read(o)) }); },
  };
  return { st, imports: { "extism:host/env": env, "extism:host/user": user } };
}

export async function loadPlugin(wasm, { config = {} } = {}) {
  const mod = await WebAssembly.compile(wasm);
  async function call(exportName, input = "") {
    const k = kernel(input, config);
    const inst = await WebAssembly.instantiate(mod, k.imports);
    let rc = null, trap = null;
    try { rc = inst.exports[exportName](); } catch (e) { trap = e; }
    let output = k.st.output;
    try { if (output != null) output = JSON.parse(output); } catch { /* not JSON: keep the text */ }
    return { rc, trap, output, error: k.st.error, notes: k.st.notes };
  }
  return {
    call,
    listTools: () => call("list_tools", "{}"),
    callTool: (name, args = {}, context = {}) =>
      call("call_tool", JSON.stringify({ request: { name, arguments: args }, context: { plugin: "test", tool: name, ...context } })),
  };
}
