// Checks tests/invalid.ts, built once per case: a mistake in a template or
// prompt declaration fails its list export with a message naming it, and
// leaves the other listing and the valid item's reads alone.
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import { loadPlugin } from "../testing/kernel.mjs";

/** [case, the export that fails, its error] for tests/invalid.ts's `which`. */
export const cases = [
  [1, "list_resource_templates", "resource template \"bad://{id\" is not a valid URI template: unclosed '{' at offset 6"],
  [2, "list_resource_templates", "resource template \"\" is not a valid URI template: it is empty"],
  [3, "list_resource_templates", "resource template ok://{id} is declared twice"],
  [4, "list_resource_templates", "resource template noname://{id} needs a name"],
  [5, "list_prompts", "prompt ok is declared twice"],
  [6, "list_prompts", "prompt name \"\" must be 1-64 characters of [A-Za-z0-9_-]"],
  [7, "list_prompts", "prompt name \"a.b\" must be 1-64 characters of [A-Za-z0-9_-]"],
];

export async function run(wasmPath, n) {
  const [, failing, error] = cases.find((c) => c[0] === n);
  const p = await loadPlugin(readFileSync(wasmPath));
  let r = await p.call(failing, "{}");
  assert.deepEqual([r.rc, r.error, r.output], [1, error, null], "case " + n);
  const other = failing === "list_prompts" ? "list_resource_templates" : "list_prompts";
  r = await p.call(other, "{}");
  assert.equal(r.rc, 0, "case " + n + ": " + other + ": " + r.error);
  r = await p.readResource("ok://7");
  assert.deepEqual(r.output, { contents: [{ uri: "ok://7", text: "ok://7" }] }, "case " + n);
  r = await p.getPrompt("ok");
  assert.equal(r.rc, 0, "case " + n + ": get_prompt: " + r.error);
}
