// mcpwasm plugin `mdtools`: Markdown to plain text, a table of contents, and
// the links a document contains.
import { registerTool, Call, ToolResult, JSONValue } from "@mcpwasm/sdk";
export { list_tools, call_tool, mcpwasm_abi_version } from "@mcpwasm/sdk";
import {
  Definition, Inline, Link, atxLevel, atxText, closesFence, fenceOf, indentOf, isRule, isTableDelimiter,
  listMarker, parseDefinition, setextLevel, splitLines, tableCells,
} from "./markdown";

const MARKDOWN = `"markdown": {"type": "string", "maxLength": 4000000, "description": "The Markdown document (CommonMark/GFM)."}`;
const READ_ONLY = `{"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}`;

/** The document's lines with fenced code marked, HTML comments removed, definitions collected. */
class Doc {
  lines: string[];
  code: bool[] = [];     // inside a fenced block (fence lines excluded)
  fence: bool[] = [];    // a fence line
  defs: Map<string, Definition> = new Map();
  isDef: bool[] = [];

  constructor(md: string) {
    this.lines = splitLines(md);
    let open = "";
    let inComment = false;
    for (let i = 0; i < this.lines.length; i++) {
      const line = this.lines[i];
      let isFence = false;
      if (open.length > 0) {
        if (closesFence(line, open)) { open = ""; isFence = true; }
      } else if (fenceOf(line).length > 0) {
        open = fenceOf(line); isFence = true;
      }
      const inCode = open.length > 0 && !isFence;
      this.code.push(inCode);
      this.fence.push(isFence);
      if (!inCode && !isFence) {
        // Drop HTML comments, which may span lines.
        let s = line;
        let out = "";
        while (s.length > 0) {
          if (inComment) {
            const e = s.indexOf("-->");
            if (e < 0) { s = ""; break; }
            s = s.substring(e + 3); inComment = false;
          } else {
            const b = s.indexOf("<!--");
            if (b < 0) { out += s; break; }
            out += s.substring(0, b); s = s.substring(b + 4); inComment = true;
          }
        }
        this.lines[i] = out;
      }
      let d: Definition | null = null;
      if (!inCode && !isFence) d = parseDefinition(this.lines[i]);
      this.isDef.push(d != null);
      if (d != null && !this.defs.has(d.label)) this.defs.set(d.label, d);
    }
  }

  /** A plain paragraph line: could be the text of a setext heading. */
  isParagraph(i: i32): bool {
    if (i < 0 || this.code[i] || this.fence[i] || this.isDef[i]) return false;
    const l = this.lines[i];
    const t = l.trimStart();
    return t.length > 0 && indentOf(l) < 4 && atxLevel(l) == 0 && listMarker(t) == 0 && !t.startsWith(">") &&
      !isRule(l) && setextLevel(l) == 0 && !t.startsWith("|");
  }
}

function toText(call: Call): ToolResult {
  const doc = new Doc(call.string("markdown"));
  const inline = new Inline(doc.defs);
  inline.keepUrls = call.optBoolean("keep_urls", false);
  const out = new Array<string>();
  let inTable = false;
  for (let i = 0; i < doc.lines.length; i++) {
    if (doc.fence[i]) continue;
    if (doc.code[i]) { out.push(doc.lines[i]); continue; }
    const line = doc.lines[i];
    if (line.trim().length == 0) { out.push(""); inTable = false; continue; }
    if (doc.isDef[i] || isRule(line) || (setextLevel(line) > 0 && doc.isParagraph(i - 1))) continue;
    let t = line.trimStart();
    let quoted = false;
    while (t.startsWith(">")) { t = t.substring(1).trimStart(); quoted = true; }
    const next = i + 1 < doc.lines.length ? doc.lines[i + 1] : "";
    if (inTable && isTableDelimiter(t)) continue;
    if (t.includes("|") && (inTable || isTableDelimiter(next))) {
      inTable = true;
      const cells = tableCells(t);
      for (let k = 0; k < cells.length; k++) cells[k] = inline.text(cells[k]);
      out.push(cells.join("\t"));
      continue;
    }
    inTable = false;
    if (atxLevel(t) > 0) { out.push(inline.text(atxText(t))); continue; }
    const m = listMarker(t);
    if (m > 0) {
      const indent = quoted ? 0 : indentOf(line);
      const ordered = t.charCodeAt(0) >= 0x30 && t.charCodeAt(0) <= 0x39;
      let item = t.substring(m).trimStart();
      let bullet = ordered ? t.substring(0, m).trim().replace(")", ".") + " " : "• ";
      if (item.startsWith("[ ] ")) { bullet += "☐ "; item = item.substring(4); }
      else if (item.startsWith("[x] ") || item.startsWith("[X] ")) { bullet += "☑ "; item = item.substring(4); }
      out.push(" ".repeat(indent) + bullet + inline.text(item));
      continue;
    }
    let text = inline.text(quoted ? t : line.trim());
    if (text.endsWith("\\")) text = text.substring(0, text.length - 1);
    out.push(text.trimEnd());
  }
  // Collapse runs of blank lines and trim the ends.
  const kept = new Array<string>();
  for (let i = 0; i < out.length; i++) {
    if (out[i].length == 0 && (kept.length == 0 || kept[kept.length - 1].length == 0)) continue;
    kept.push(out[i]);
  }
  while (kept.length > 0 && kept[kept.length - 1].length == 0) kept.pop();
  return ToolResult.text(kept.join("\n"));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function slugify(text: string): string {
  const s = text.toLowerCase();
  const out = new Array<string>();
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c == 0x2d || c == 0x5f) out.push(s.charAt(i));
    else if (c == 0x20) out.push("-");
    else if (c >= 0xc0 && !(c >= 0x2000 && c <= 0x2bff) && !(c >= 0xd800 && c < 0xe000) && c != 0xd7 && c != 0xf7) out.push(s.charAt(i));
  }
  return out.join("");
}

function toc(call: Call): ToolResult {
  const doc = new Doc(call.string("markdown"));
  const minLevel = call.optInteger("min_level", 1);
  const maxLevel = call.optInteger("max_level", 3);
  if (minLevel > maxLevel) return ToolResult.error("min_level (" + minLevel.toString() + ") is above max_level (" + maxLevel.toString() + ")");
  const inline = new Inline(doc.defs);
  const seen = new Map<string, i32>();
  const headings = JSONValue.array();
  const rows = new Array<string>();
  let top = 7;
  const levels = new Array<i32>();
  const texts = new Array<string>();
  const slugs = new Array<string>();
  const lineNos = new Array<i32>();
  for (let i = 0; i < doc.lines.length; i++) {
    if (doc.code[i] || doc.fence[i]) continue;
    let level = atxLevel(doc.lines[i]);
    let raw = level > 0 ? atxText(doc.lines[i]) : "";
    let at = i;
    if (level == 0 && setextLevel(doc.lines[i]) > 0 && doc.isParagraph(i - 1)) {
      level = setextLevel(doc.lines[i]);
      raw = doc.lines[i - 1].trim();
      at = i - 1;
    }
    if (level == 0) continue;
    const text = inline.text(raw).trim();
    let slug = slugify(text);
    const base = slug;
    if (seen.has(base)) { const n = seen.get(base); slug = base + "-" + n.toString(); seen.set(base, n + 1); }
    else seen.set(base, 1);
    if (level < minLevel || level > maxLevel) continue;
    levels.push(level); texts.push(text); slugs.push(slug); lineNos.push(at + 1);
    if (level < top) top = level;
  }
  for (let k = 0; k < levels.length; k++) {
    const label = texts[k].replaceAll("[", "\\[").replaceAll("]", "\\]");
    rows.push("  ".repeat(levels[k] - top) + "- [" + label + "](#" + slugs[k] + ")");
    headings.push(JSONValue.object().setNumber("level", levels[k]).setString("text", texts[k])
      .setString("slug", slugs[k]).setNumber("line", lineNos[k]));
  }
  const text = rows.length == 0 ? "(no headings between levels " + minLevel.toString() + " and " + maxLevel.toString() + ")" : rows.join("\n");
  return ToolResult.text(text).withStructured(JSONValue.object().set("headings", headings).setString("toc", rows.join("\n")));
}

function links(call: Call): ToolResult {
  const doc = new Doc(call.string("markdown"));
  const images = call.optBoolean("include_images", true);
  const unique = call.optBoolean("unique", false);
  const inline = new Inline(doc.defs);
  for (let i = 0; i < doc.lines.length; i++) {
    if (doc.code[i] || doc.fence[i] || doc.isDef[i]) continue;
    inline.line = i + 1;
    inline.text(doc.lines[i]);
  }
  const list = JSONValue.array();
  const rows = new Array<string>();
  const urls = new Set<string>();
  for (let k = 0; k < inline.links.length; k++) {
    const l: Link = inline.links[k];
    if (!images && l.kind == "image") continue;
    if (unique && urls.has(l.url)) continue;
    urls.add(l.url);
    const v = JSONValue.object().setString("kind", l.kind).setString("text", l.text).setString("url", l.url);
    if (l.title.length > 0) v.setString("title", l.title);
    list.push(v.setNumber("line", l.line));
    rows.push("line " + l.line.toString() + ": " + l.url + (l.text != l.url && l.text.length > 0 ? " \"" + l.text + "\"" : "") + " (" + l.kind + ")");
  }
  const text = rows.length == 0 ? "(no links)" : rows.join("\n");
  return ToolResult.text(text).withStructured(JSONValue.object().set("links", list).setNumber("count", list.length));
}

registerTool("to_text", "Convert Markdown to plain text: drop heading marks, emphasis, code fences, link and image syntax " +
  "(keeping link text and image alt text), HTML tags and comments; lists become • and 1. items, tables tab-separated.",
  `{"type": "object", "properties": {${MARKDOWN},
    "keep_urls": {"type": "boolean", "default": false, "description": "Write each link as 'text (url)' instead of just its text."}},
    "required": ["markdown"], "additionalProperties": false}`, toText)
  .withTitle("Markdown to text").withAnnotations(READ_ONLY);

registerTool("toc", "Build a table of contents from a Markdown document's headings (ATX # and setext underlines; code " +
  "blocks ignored), as a nested Markdown list linking GitHub-style anchors.",
  `{"type": "object", "properties": {${MARKDOWN},
    "min_level": {"type": "integer", "minimum": 1, "maximum": 6, "default": 1, "description": "Shallowest heading level to include."},
    "max_level": {"type": "integer", "minimum": 1, "maximum": 6, "default": 3, "description": "Deepest heading level to include."}},
    "required": ["markdown"], "additionalProperties": false}`, toc)
  .withTitle("Table of contents").withAnnotations(READ_ONLY)
  .withOutputSchema(`{"type": "object", "properties": {"toc": {"type": "string"}, "headings": {"type": "array", "items": {"type": "object",
    "properties": {"level": {"type": "integer"}, "text": {"type": "string"}, "slug": {"type": "string"}, "line": {"type": "integer"}}}}},
    "required": ["toc", "headings"]}`);

registerTool("links", "List the links in a Markdown document with their line numbers: inline [text](url), images, " +
  "reference links resolved through their definitions, <autolinks> and bare URLs. Code is skipped.",
  `{"type": "object", "properties": {${MARKDOWN},
    "include_images": {"type": "boolean", "default": true, "description": "Include images (kind 'image')."},
    "unique": {"type": "boolean", "default": false, "description": "List each URL once, at its first occurrence."}},
    "required": ["markdown"], "additionalProperties": false}`, links)
  .withTitle("Extract links").withAnnotations(READ_ONLY)
  .withOutputSchema(`{"type": "object", "properties": {"count": {"type": "integer"}, "links": {"type": "array", "items": {"type": "object",
    "properties": {"kind": {"type": "string", "enum": ["inline", "image", "reference", "autolink", "bare"]}, "text": {"type": "string"},
    "url": {"type": "string"}, "title": {"type": "string"}, "line": {"type": "integer"}}}}}, "required": ["count", "links"]}`);
