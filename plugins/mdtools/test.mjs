// npm test: runs mdtools.wasm (build it first with ./build.sh) against the
// SDK's stand-in kernel and checks each tool's answers.
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import { loadPlugin } from "@mcpwasm/sdk/testing/kernel.mjs";

const here = new URL(".", import.meta.url).pathname;
const p = await loadPlugin(readFileSync(here + "mdtools.wasm"));
const md = readFileSync(here + "testdata/sample.md", "utf8");
const text = async (tool, args) => {
  const r = await p.callTool(tool, args);
  assert.equal(r.rc, 0, r.error);
  return r.output;
};

let r = await p.listTools();
assert.deepEqual(r.output.tools.map((t) => t.name), ["to_text", "toc", "links"]);

let out = (await text("to_text", { markdown: md })).content[0].text;
for (const want of [
  "Project Title\n\nSome bold and em text with code span, a link, snake_case_name and 2 * 3 * 4.",
  "An image alt text and https://auto.link/x and bare https://bare.example.org/path. Also www.example.com!",
  "\nSetext Heading\n",
  "A quote with ref link and Shortcut.\nnested & entity é <tag>",
  "• item one\n  • nested [x] not a task\n• ☐ task open\n• ☑ task done\n1. first\n2. second",
  "Col A\tCol B\na1\tb1\na2\tb2 | pipe\n",
  "# not a heading\nprint(\"[not](a link)\")",
  "Text with html and line break\nhere. Escaped *stars* and [brackets].",
  "Sub strike code\nDeep",
]) assert.ok(out.includes(want), "to_text lacks:\n" + want + "\n--- got:\n" + out);
for (const bad of ["**", "```", "<!--", "spanning", "[r1]:", "---", "***"]) assert.ok(!out.includes(bad), "to_text kept " + bad);
out = (await text("to_text", { markdown: md, keep_urls: true })).content[0].text;
assert.ok(out.includes("a link (https://example.com/a_(b))") && out.includes("ref link (https://ref.example/one)"), out);

r = await text("toc", { markdown: md, max_level: 4 });
assert.equal(r.content[0].text, [
  "- [Project Title](#project-title)",
  "  - [Setext Heading](#setext-heading)",
  "  - [Project Title](#project-title-1)",
  "    - [Sub strike code](#sub-strike-code)",
  "      - [Deep](#deep)"].join("\n"));
assert.deepEqual(r.structuredContent.headings[1], { level: 2, text: "Setext Heading", slug: "setext-heading", line: 6 });
r = await text("toc", { markdown: md, min_level: 2, max_level: 2 });
assert.equal(r.content[0].text, "- [Setext Heading](#setext-heading)\n- [Project Title](#project-title-1)");
r = await text("toc", { markdown: "## Déjà vu: *ça* va?\n# C++ & Go!\n", max_level: 6 });
assert.deepEqual(r.structuredContent.headings.map((h) => h.slug), ["déjà-vu-ça-va", "c--go"]);
r = await text("toc", { markdown: "no headings" });
assert.equal(r.content[0].text, "(no headings between levels 1 and 3)");
r = await text("toc", { markdown: "# x", min_level: 3, max_level: 2 });
assert.equal(r.isError, true);

r = await text("links", { markdown: md });
assert.deepEqual(r.structuredContent.links.map((l) => [l.line, l.kind, l.url]), [
  [3, "inline", "https://example.com/a_(b)"],
  [4, "image", "img.png"],
  [4, "autolink", "https://auto.link/x"],
  [4, "bare", "https://bare.example.org/path"],
  [4, "bare", "http://www.example.com"],
  [9, "reference", "https://ref.example/one"],
  [9, "reference", "https://short.example/x y"],
  [21, "inline", "http://b1.example"],
]);
assert.deepEqual(r.structuredContent.links[0], { kind: "inline", text: "link", url: "https://example.com/a_(b)", title: "T", line: 3 });
assert.equal(r.structuredContent.links[5].title, "Ref Title");
r = await text("links", { markdown: "[a](x) ![i](y) [b](x) <me@example.com>", include_images: false, unique: true });
assert.deepEqual(r.structuredContent.links.map((l) => l.url), ["x", "mailto:me@example.com"]);
r = await text("links", { markdown: "`[a](x)` [undefined ref] (not) [text]" });
assert.equal(r.content[0].text, "(no links)");

r = await p.callTool("to_text", {});
assert.equal(r.output.isError, true);
assert.equal(r.output.content[0].text, "missing required argument \"markdown\" (a string)");
console.log("mdtools: ok");
