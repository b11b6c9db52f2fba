// npm test: builds the JSON and URI template tests and four plugins (the
// example, an API tour, the rest of ABI v1 and declaration mistakes), then
// runs them under Node.
// The plugins run against testing/kernel.mjs, a stand-in for the Extism
// kernel, so the SDK's exports are tested without the Go host.
import asc from "assemblyscript/asc";
import { readFileSync, mkdirSync } from "node:fs";
import assert from "node:assert/strict";
import { loadPlugin } from "../testing/kernel.mjs";

const here = new URL("..", import.meta.url).pathname;
process.chdir(here);
mkdirSync("build", { recursive: true });

async function build(args) {
  const { error, stderr } = await asc.main(args, { stdout: process.stdout, stderr: process.stderr });
  if (error) throw new Error("asc failed: " + error.message + "\n" + stderr.toString());
}

// 1. The JSON layer.
await build(["tests/json.test.ts", "--outFile", "build/json.test.wasm", "--bindings", "raw"]);
const { instantiate } = await import(here + "build/json.test.js");
const json = await instantiate(await WebAssembly.compile(readFileSync(here + "build/json.test.wasm")), {});
const failures = json.run();
assert.equal(failures, "", "JSON tests failed:\n" + failures);
console.log("json: ok");

// 1b. URI template matching.
await build(["tests/uritemplate.test.ts", "--outFile", "build/uritemplate.test.wasm", "--bindings", "raw"]);
const ut = await (await import(here + "build/uritemplate.test.js"))
  .instantiate(await WebAssembly.compile(readFileSync(here + "build/uritemplate.test.wasm")), {});
const utFailures = ut.run();
assert.equal(utFailures, "", "URI template tests failed:\n" + utFailures);
console.log("uritemplate: ok");

// 2. The example plugin against a stand-in kernel.
// The same options as plugin.asconfig.json, with the abort handler's in-package path.
await build(["example/hello.ts", "-O3", "--use", "abort=assembly/host/mcpwasmAbort", "--outFile", "build/hello.wasm"]);
const plugin = await loadPlugin(readFileSync("build/hello.wasm"));
// A tools-only plugin exports the tool ABI only and imports no host function.
assert.deepEqual(plugin.exports.sort(), ["call_tool", "list_tools", "mcpwasm_abi_version", "memory"]);
assert.deepEqual(plugin.imports.filter((i) => !i.startsWith("extism:host/env.")), []);
const call = (exportName, input) => plugin.call(exportName, input);
const env = (name, args) => JSON.stringify({ request: { name, arguments: args }, context: { plugin: "x", tool: name } });

let r = await call("list_tools", "{}");
assert.equal(r.rc, 0);
assert.deepEqual(r.output.tools[0], { name: "hello", description: "Greets someone by name",
  inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
r = await call("mcpwasm_abi_version", "");
assert.equal(r.rc, 1);
r = await call("call_tool", env("hello", { name: "Zoë \"q\" 😀" }));
assert.deepEqual(r.output, { content: [{ type: "text", text: "Hello, Zoë \"q\" 😀!" }] });
r = await call("call_tool", env("hello", {}));
assert.deepEqual(r.output, { content: [{ type: "text", text: "missing required argument \"name\" (a string)" }], isError: true });
r = await call("call_tool", env("hello", { name: 5 }));
assert.equal(r.output.content[0].text, "argument \"name\" must be a string, got number");
r = await call("call_tool", env("nope", {}));
assert.equal(r.output.content[0].text, "unknown tool \"nope\"");
r = await call("call_tool", "not json");
assert.equal(r.rc, 1);
assert.match(r.error, /^mcpwasm: malformed call_tool input: expected a JSON value at offset 0/);
r = await call("call_tool", "[1]");
assert.deepEqual([r.rc, r.error], [1, "mcpwasm: malformed call_tool input: no request object"]);
r = await call("call_tool", JSON.stringify({ request: {} }));
assert.deepEqual([r.rc, r.error], [1, "mcpwasm: malformed call_tool input: no request.name"]);
r = await call("call_tool", JSON.stringify({ request: { name: "hello", arguments: [1] } }));
assert.equal(r.rc, 1);
assert.match(r.error, /request.arguments is a array/);
r = await call("call_tool", env("hello", { name: "abort" }));
assert.ok(r.trap instanceof WebAssembly.RuntimeError, "abort traps");
assert.equal(r.error, "abort: asked to abort at example/hello.ts:6:24");
console.log("plugin: ok");

// 3. The rest of the API: results, notifications, config, argument getters.
await build(["tests/features.ts", "-O3", "--use", "abort=assembly/host/mcpwasmAbort", "--outFile", "build/features.wasm"]);
const f = await loadPlugin(readFileSync("build/features.wasm"), { config: { greeting: "Hi" } });
r = await f.listTools();
assert.equal(r.output.tools[0].title, "Features");
assert.deepEqual(r.output.tools[0].annotations, { readOnlyHint: true });
assert.deepEqual(r.output.tools[0].outputSchema, { type: "object" });
assert.equal(r.output.tools[0].execution, undefined);
assert.deepEqual(r.output.tools[1].execution, { taskSupport: "optional" });
const mounts = [{ path: "/srv/data", read_only: true }];
r = await f.callTool("features", { n: 4, tag: "t" }, { deadline_ms: 4998, mounts });
assert.deepEqual(r.output.structuredContent,
  { n: 4, scaled: 6, loud: false, tag: "t", greeting: "Hi", plugin: "test", deadline: 4998, mounts });
assert.equal(r.output.content[0].text, JSON.stringify(r.output.structuredContent));
assert.deepEqual(r.output.content[1], { type: "image", data: "Zm9v", mimeType: "image/png" });
assert.deepEqual(r.output._meta, { x: true });
assert.deepEqual(r.notes.map((n) => n.payload), [
  { progress: 1, total: 2, message: "half way" }, { progress: 2 },
  { level: "info", data: { n: 4 } }, { level: "debug", data: "plain" }]);
r = await f.callTool("features", { n: 1.5 });
assert.equal(r.output.content[0].text, "argument \"n\" must be an integer, got number");
r = await f.callTool("features", { n: 1, loud: "yes" });
assert.equal(r.output.content[0].text, "argument \"loud\" must be a boolean, got string");
r = await f.callTool("fails", { what: "x" });
assert.deepEqual(r.output, { content: [{ type: "text", text: "nothing to do for x" }], isError: true });
console.log("features: ok");

// 4. Resources, templates, prompts, completion and the host functions.
await build(["tests/abi.ts", "-O3", "--use", "abort=assembly/host/mcpwasmAbort", "--outFile", "build/abi.wasm"]);
await (await import("./abi.mjs")).run("build/abi.wasm");
console.log("abi: ok");

// 5. Declaration mistakes fail list_resource_templates or list_prompts, naming the item.
const invalid = await import("./invalid.mjs");
for (const [n] of invalid.cases) {
  await build(["tests/invalid.ts", "--use", "CASE=" + n, "--use", "abort=assembly/host/mcpwasmAbort",
    "--outFile", "build/invalid.wasm"]);
  await invalid.run("build/invalid.wasm", n);
}
console.log("invalid: ok");

// 6. Skills: a folder embedded at build time by embed-skill.mjs, and a skill
//    whose file path would leave it.
{
  const { execFileSync } = await import("node:child_process");
  const { writeFileSync } = await import("node:fs");
  const gen = execFileSync(process.execPath, ["embed-skill.mjs", "tests/skills/review"], { encoding: "utf8" })
    .replace('"@mcpwasm/sdk"', '"../assembly/index"');
  writeFileSync("build/skills.gen.ts", gen);
  await build(["tests/skills.ts", "-O3", "--use", "abort=assembly/host/mcpwasmAbort", "--outFile", "build/skills.wasm"]);
  const s = await loadPlugin(readFileSync("build/skills.wasm"));
  const r = await s.call("list_skills", JSON.stringify({ request: {}, context: {} }));
  assert.equal(r.rc, 0, r.error);
  assert.deepEqual(r.output, { skills: [{ path: "review", files: [
    { path: "SKILL.md", text: readFileSync("tests/skills/review/SKILL.md", "utf8") },
    { path: "references/checklist.md", text: "- tests\n" },
    { path: "references/x.bin", blob: "AAH/" },
  ] }] });
  await build(["tests/skills_bad.ts", "--use", "abort=assembly/host/mcpwasmAbort", "--outFile", "build/skills_bad.wasm"]);
  const b = await (await loadPlugin(readFileSync("build/skills_bad.wasm"))).call("list_skills", "{}");
  assert.equal(b.rc, 1);
  assert.match(b.error, /"\.\.\/other\/SKILL\.md": not a valid path/);
  console.log("skills: ok");
}
