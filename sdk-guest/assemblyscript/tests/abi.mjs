// Checks build/abi.wasm (tests/abi.ts) against the stand-in kernel:
// resources, templates, prompts, completion and the host functions.
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import { loadPlugin } from "../testing/kernel.mjs";

export async function run(wasmPath) {
  const wasm = readFileSync(wasmPath);
  const host = {
    create_message: (p) => ({ role: "assistant", model: "m1", stopReason: "endTurn",
      content: { type: "text", text: "echo " + p.messages[0].content.text } }),
    create_elicitation: (p) => (p.mode === "url" ? { action: "accept" }
      : { action: "accept", content: { name: "Ada", age: 36 } }),
    list_roots: () => ({ roots: [{ uri: "file:///a", name: "A" }, { uri: "file:///b" }] }),
  };
  const p = await loadPlugin(wasm, { host });

  // Exports and imports: everything this plugin uses, nothing it does not (no notify_progress).
  assert.deepEqual(p.exports.sort(), ["call_tool", "complete", "get_prompt", "list_prompts", "list_resource_templates",
    "list_resources", "list_tools", "mcpwasm_abi_version", "memory", "read_resource"]);
  assert.deepEqual(p.imports.filter((i) => i.startsWith("extism:host/user.")).sort(), [
    "create_elicitation", "create_message", "list_roots", "notify_prompt_list_changed", "notify_resource_list_changed",
    "notify_resource_updated", "notify_tool_list_changed", "notify_url_elicitation_completed"].map((f) => "extism:host/user." + f));

  // Listings.
  let r = await p.listResources();
  assert.equal(r.rc, 0, r.error);
  assert.deepEqual(r.output.resources[0], { uri: "mem://greeting", name: "greeting", title: "Greeting",
    description: "A friendly text", mimeType: "text/plain", annotations: { audience: ["user"], priority: 0.5 }, size: 42 });
  assert.deepEqual(r.output.resources.map((x) => x.uri), ["mem://greeting", "mem://bytes", "mem://multi", "mem://broken",
    "mem://empty", "users://7/profile"]);
  r = await p.listResourceTemplates();
  assert.deepEqual(r.output, { resourceTemplates: [
    { uriTemplate: "users://{id}/profile", name: "user", title: "User", mimeType: "application/json" },
    { uriTemplate: "files:///{+path}", name: "file", description: "Any file" },
    { uriTemplate: "search://q{?q,lang}", name: "search" }] });

  // Reads: declared resources, mimeType and URI defaults, blobs, several contents.
  r = await p.readResource("mem://greeting", { plugin: "demo" });
  assert.deepEqual(r.output, { contents: [{ uri: "mem://greeting", mimeType: "text/plain",
    text: "hello from demo (text/plain, template \"\")" }] });
  r = await p.readResource("mem://bytes");
  assert.deepEqual(r.output, { contents: [{ uri: "mem://bytes", mimeType: "image/png", blob: "+vv8/f4=" }] });
  r = await p.readResource("mem://multi");
  assert.deepEqual(r.output.contents, [{ uri: "mem://multi", mimeType: "text/plain", text: "first" },
    { uri: "mem://multi/b", mimeType: "text/markdown", text: "second" },
    { uri: "mem://other", mimeType: "text/plain", blob: "QQ==" }]);
  r = await p.readResource("users://7/profile");
  assert.match(r.output.contents[0].text, /^hello from test/, "a declared URI wins over a template");

  // Reads through templates.
  r = await p.readResource("users://42/profile");
  assert.deepEqual(r.output, { contents: [{ uri: "users://42/profile", mimeType: "application/json",
    text: JSON.stringify({ template: "users://{id}/profile", id: "42", missing: "dflt" }) }] });
  r = await p.readResource("files:///etc/a%20b.txt");
  assert.deepEqual(JSON.parse(r.output.contents[0].text), { template: "files:///{+path}", path: "etc/a%20b.txt", missing: "dflt" });
  assert.equal(r.output.contents[0].mimeType, undefined, "no mimeType declared, none sent");
  r = await p.readResource("search://q?lang=de&q=a%20b");
  assert.deepEqual(JSON.parse(r.output.contents[0].text), { template: "search://q{?q,lang}", lang: "de", q: "a b", missing: "dflt" });

  // Read failures: error_set and rc 1, so the host answers a JSON-RPC error.
  r = await p.readResource("users://x/profile");
  assert.deepEqual([r.rc, r.error, r.output], [1, "resource users://x/profile not found", null]);
  r = await p.readResource("nope://x");
  assert.deepEqual([r.rc, r.error], [1, "resource nope://x not found"]);
  r = await p.readResource("mem://broken");
  assert.deepEqual([r.rc, r.error], [1, "disk on fire"]);
  r = await p.readResource("mem://empty");
  assert.deepEqual([r.rc, r.error], [1, "reading mem://empty returned no contents"]);
  r = await p.call("read_resource", JSON.stringify({ request: {} }));
  assert.deepEqual([r.rc, r.error], [1, "mcpwasm: malformed read_resource input: no request.uri"]);
  r = await p.call("read_resource", "[1");
  assert.equal(r.rc, 1);
  assert.match(r.error, /^mcpwasm: malformed read_resource input: unexpected end of input/);

  // Prompts.
  r = await p.listPrompts();
  assert.deepEqual(r.output, { prompts: [
    { name: "review", title: "Code review", description: "Review some code",
      arguments: [{ name: "code", description: "The code", required: true }, { name: "language" }] },
    { name: "fails", description: "Always fails" },
    { name: "chat", description: "A chat", arguments: [{ name: "mood", description: "How to sound" }] }] });
  r = await p.getPrompt("review", { code: "x := 1", language: "go" });
  assert.deepEqual(r.output, { description: "Code review",
    messages: [{ role: "user", content: { type: "text", text: "Review this go:\nx := 1" } }] });
  r = await p.getPrompt("review", { code: "x" });
  assert.equal(r.output.messages[0].content.text, "Review this code:\nx");
  r = await p.getPrompt("review", { language: "go" });
  assert.deepEqual([r.rc, r.error], [1, "prompt review: argument code is required"]);
  r = await p.getPrompt("review");
  assert.deepEqual([r.rc, r.error], [1, "prompt review: argument code is required"]);
  r = await p.getPrompt("review", { code: 1 });
  assert.deepEqual([r.rc, r.error], [1, "prompt review: argument code must be a string, got number"]);
  r = await p.getPrompt("fails", {});
  assert.deepEqual([r.rc, r.error], [1, "nothing to prompt for fails"]);
  r = await p.call("get_prompt", JSON.stringify({ request: { name: "review", arguments: "code" } }));
  assert.deepEqual([r.rc, r.error], [1, "mcpwasm: malformed get_prompt input: request.arguments is a string, not an object"]);
  r = await p.getPrompt("ghost", {});
  assert.deepEqual([r.rc, r.error], [1, "prompt ghost not found"]);
  r = await p.getPrompt("chat", { mood: "calm" }, { plugin: "bot" });
  assert.deepEqual(r.output, { description: "A chat", messages: [
    { role: "assistant", content: { type: "text", text: "I am bot, calm" } },
    { role: "user", content: { type: "image", data: "AAEC", mimeType: "image/png" } }] });

  // Completion.
  const prompt = { type: "ref/prompt", name: "review" };
  const values = async (ref, arg, value, resolved) => {
    const c = await p.complete(ref, arg, value, resolved);
    assert.equal(c.rc, 0, c.error);
    return c.output.completion;
  };
  assert.deepEqual(await values(prompt, "language", ""), { values: ["go", "python", "rust", "typescript"] });
  assert.deepEqual(await values(prompt, "language", "r"), { values: ["rust"] });
  assert.deepEqual(await values(prompt, "language", "R"), { values: [] }, "prefixes are case-sensitive");
  assert.deepEqual(await values(prompt, "code", "x"), { values: [] });
  assert.deepEqual(await values({ type: "ref/prompt", name: "ghost" }, "language", ""), { values: [] });
  assert.deepEqual(await values({ type: "ref/resource", uri: "search://q{?q,lang}" }, "lang", "e"), { values: ["en", "el"] });
  assert.deepEqual(await values({ type: "ref/resource", uri: "users://{id}/profile" }, "id", "4", { org: "acme" }),
    { values: ["ref/resource users://{id}/profile id=4 org=acme"] });
  assert.deepEqual(await values({ type: "ref/resource", uri: "users://{id}/profile" }, "id", ""),
    { values: ["ref/resource users://{id}/profile id= org=none"] });
  const many = await values({ type: "ref/prompt", name: "chat" }, "mood", "m");
  assert.deepEqual([many.values.length, many.values[0], many.values[99], many.total, many.hasMore], [100, "m0", "m99", 150, true]);
  assert.deepEqual(await values({ type: "ref/other" }, "x", ""), { values: [] });
  r = await p.call("complete", JSON.stringify({ request: { ref: { type: "ref/prompt" } } }));
  assert.deepEqual([r.rc, r.error], [1, "mcpwasm: malformed complete input: want ref.type and argument.name"]);

  // Sampling: the request as built, the answer's fields.
  r = await p.callTool("sample", { prompt: "hi" });
  assert.deepEqual(r.output, { content: [{ type: "text", text: "assistant m1 endTurn: echo hi" }] });
  assert.deepEqual(r.notes, [{ function: "create_message", payload: {
    messages: [{ role: "user", content: { type: "text", text: "hi" } }, { role: "assistant", content: { type: "text", text: "pong?" } },
      { role: "user", content: { type: "text", text: "again" } }],
    maxTokens: 32, systemPrompt: "be brief", temperature: 0.5, stopSequences: ["\n", "END"], includeContext: "none",
    modelPreferences: { speedPriority: 1 }, metadata: { x: true } } }]);

  // Elicitation (form and URL mode) and roots.
  r = await p.callTool("ask");
  assert.equal(r.output.content[0].text, "accept Ada true {\"name\":\"Ada\",\"age\":36}");
  assert.deepEqual(r.notes[0].payload, { message: "Your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
  r = await p.callTool("ask", { schema: "{bad" });
  assert.deepEqual(r.output, { content: [{ type: "text",
    text: "elicitation unavailable: requestedSchema is not valid JSON: expected a string key at offset 1" }], isError: true });
  assert.deepEqual(r.notes, [], "an invalid schema never reaches the host");
  r = await p.callTool("visit");
  assert.equal(r.output.content[0].text, "accept");
  assert.deepEqual(r.notes, [
    { function: "create_elicitation", payload: { mode: "url", message: "Log in", url: "https://example.com/login", elicitationId: "el-1" } },
    { function: "notify_url_elicitation_completed", payload: { elicitationId: "el-1" } }]);
  r = await p.callTool("roots");
  assert.equal(r.output.content[0].text, "file:///a|A,file:///b|");
  assert.deepEqual(r.notes, [{ function: "list_roots", payload: undefined }]);

  // Notifications.
  r = await p.callTool("notify", { uri: "mem://greeting" });
  assert.equal(r.output.content[0].text, "notified");
  assert.deepEqual(r.notes, [{ function: "notify_resource_updated", payload: { uri: "mem://greeting" } },
    { function: "notify_tool_list_changed", payload: undefined }, { function: "notify_resource_list_changed", payload: undefined },
    { function: "notify_prompt_list_changed", payload: undefined }]);

  // Host errors reach the handler as ok == false with the host's message.
  const refusing = await loadPlugin(wasm, { host: {
    create_message: () => ({ error: { message: "the client does not support sampling" } }),
    create_elicitation: () => ({ error: { message: "stateless" } }),
    list_roots: () => "not json",
  } });
  r = await refusing.callTool("sample");
  assert.deepEqual(r.output, { content: [{ type: "text", text: "sampling unavailable: the client does not support sampling" }], isError: true });
  r = await refusing.callTool("ask");
  assert.equal(r.output.content[0].text, "elicitation unavailable: stateless");
  r = await refusing.callTool("roots");
  assert.equal(r.output.content[0].text, "roots unavailable: the host's answer is not JSON: expected a JSON value at offset 0");
  const bare = await loadPlugin(wasm); // the kernel's default: every request refused
  r = await bare.callTool("roots");
  assert.equal(r.output.content[0].text, "roots unavailable: list_roots: not provided by the test kernel");
  const odd = await loadPlugin(wasm, { host: { create_message: () => ({ error: "plain" }),
    create_elicitation: () => ({ error: { code: 5 } }), list_roots: () => [] } });
  r = await odd.callTool("sample");
  assert.equal(r.output.content[0].text, "sampling unavailable: plain");
  r = await odd.callTool("ask");
  assert.equal(r.output.content[0].text, "elicitation unavailable: {\"code\":5}");
  r = await odd.callTool("roots");
  assert.equal(r.output.content[0].text, "roots unavailable: the host's answer is not a JSON object (got array)");
}
