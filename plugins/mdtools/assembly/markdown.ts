// Markdown scanning for mdtools: block structure (fences, headings, lists,
// quotes, tables) and inline syntax (code spans, links, images, emphasis,
// autolinks, entities). A pragmatic CommonMark/GFM subset with no regexes
// (AssemblyScript has none) and no closures.

function isSpace(c: i32): bool { return c == 0x20 || c == 0x09; }
function isDigit(c: i32): bool { return c >= 0x30 && c <= 0x39; }
function isAlnum(c: i32): bool { return isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c >= 0x80; }
function isPunct(c: i32): bool {
  return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
}

/** Characters that may start inline syntax: \\ ` [ ! < h w * _ ~ &. */
function isSpecial(c: i32): bool {
  return c == 0x5c || c == 0x60 || c == 0x5b || c == 0x21 || c == 0x3c || c == 0x68 || c == 0x77 ||
    c == 0x2a || c == 0x5f || c == 0x7e || c == 0x26;
}

/** Leading spaces of s (a tab counts as 4). */
export function indentOf(s: string): i32 {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x20) n++; else if (c == 0x09) n += 4; else break;
  }
  return n;
}

export function splitLines(md: string): string[] {
  return md.replaceAll("\r\n", "\n").replaceAll("\r", "\n").split("\n");
}

/** The fence marker (``` or ~~~, full run) opening or closing a code block, or "". */
export function fenceOf(line: string): string {
  if (indentOf(line) > 3) return "";
  const t = line.trimStart();
  const c = t.length > 0 ? t.charCodeAt(0) : 0;
  if (c != 0x60 && c != 0x7e) return "";
  let n = 0;
  while (n < t.length && t.charCodeAt(n) == c) n++;
  if (n < 3) return "";
  if (c == 0x60 && t.substring(n).includes("`")) return ""; // backtick info strings cannot contain backticks
  return t.substring(0, n);
}

/** Whether `line` closes a block opened by `open`. */
export function closesFence(line: string, open: string): bool {
  const f = fenceOf(line);
  return f.length >= open.length && f.charCodeAt(0) == open.charCodeAt(0) && line.trim() == f;
}

/** ATX heading level (1-6) of a line, or 0. */
export function atxLevel(line: string): i32 {
  if (indentOf(line) > 3) return 0;
  const t = line.trimStart();
  let n = 0;
  while (n < t.length && t.charCodeAt(n) == 0x23) n++;
  if (n < 1 || n > 6) return 0;
  return n == t.length || isSpace(t.charCodeAt(n)) ? n : 0;
}

/** The text of an ATX heading, without the #s and any closing sequence. */
export function atxText(line: string): string {
  let t = line.trim();
  let n = 0;
  while (n < t.length && t.charCodeAt(n) == 0x23) n++;
  t = t.substring(n).trim();
  let e = t.length;
  while (e > 0 && t.charCodeAt(e - 1) == 0x23) e--;
  if (e < t.length && (e == 0 || isSpace(t.charCodeAt(e - 1)))) t = t.substring(0, e).trim();
  return t;
}

/** 1 for a `===` underline, 2 for `---`, else 0. */
export function setextLevel(line: string): i32 {
  if (indentOf(line) > 3) return 0;
  const t = line.trim();
  if (t.length == 0) return 0;
  const c = t.charCodeAt(0);
  if (c != 0x3d && c != 0x2d) return 0;
  for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) != c) return 0;
  return c == 0x3d ? 1 : 2;
}

/** A thematic break: three or more of the same -, * or _, spaces allowed. */
export function isRule(line: string): bool {
  if (indentOf(line) > 3) return false;
  const t = line.trim();
  if (t.length < 3) return false;
  const c = t.charCodeAt(0);
  if (c != 0x2d && c != 0x2a && c != 0x5f) return false;
  let n = 0;
  for (let i = 0; i < t.length; i++) {
    const d = t.charCodeAt(i);
    if (d == c) n++; else if (!isSpace(d)) return false;
  }
  return n >= 3;
}

/** Length of a list marker with its following space ("- ", "12. "), or 0. */
export function listMarker(t: string): i32 {
  if (t.length < 2) return 0;
  const c = t.charCodeAt(0);
  if ((c == 0x2d || c == 0x2a || c == 0x2b) && isSpace(t.charCodeAt(1))) return 2;
  let n = 0;
  while (n < t.length && n < 9 && isDigit(t.charCodeAt(n))) n++;
  if (n == 0 || n + 1 >= t.length) return 0;
  const d = t.charCodeAt(n);
  return (d == 0x2e || d == 0x29) && isSpace(t.charCodeAt(n + 1)) ? n + 2 : 0;
}

/** A GFM table delimiter row such as `| --- | :--: |`. */
export function isTableDelimiter(line: string): bool {
  const t = line.trim();
  if (!t.includes("-")) return false;
  let dashes = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c == 0x2d) dashes++;
    else if (c != 0x7c && c != 0x3a && !isSpace(c)) return false;
  }
  return dashes >= 1 && (t.includes("|") || dashes >= 3);
}

/** Cells of a table row, trimmed, without the outer pipes. */
export function tableCells(line: string): string[] {
  let t = line.trim();
  if (t.startsWith("|")) t = t.substring(1);
  if (t.endsWith("|") && !t.endsWith("\\|")) t = t.substring(0, t.length - 1);
  const cells = new Array<string>();
  let start = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c == 0x5c) { i++; continue; }
    if (c == 0x7c) { cells.push(t.substring(start, i).trim()); start = i + 1; }
  }
  cells.push(t.substring(start).trim());
  return cells;
}

/** A link reference definition `[label]: url "title"`, parsed. */
export class Definition {
  constructor(public label: string, public url: string, public title: string) {}
}

/** Case- and space-insensitive label matching, as CommonMark does. */
export function normalizeLabel(s: string): string {
  const parts = s.trim().toLowerCase().split(" ");
  const out = new Array<string>();
  for (let i = 0; i < parts.length; i++) if (parts[i].length > 0) out.push(parts[i]);
  return out.join(" ");
}

export function parseDefinition(line: string): Definition | null {
  if (indentOf(line) > 3) return null;
  const t = line.trim();
  if (!t.startsWith("[") || t.startsWith("[^")) return null;
  const close = t.indexOf("]:");
  if (close < 2) return null;
  const rest = t.substring(close + 2).trim();
  if (rest.length == 0) return null;
  let url = rest;
  let title = "";
  if (rest.startsWith("<")) {
    const e = rest.indexOf(">");
    if (e < 0) return null;
    url = rest.substring(1, e);
    title = rest.substring(e + 1).trim();
  } else {
    const sp = rest.indexOf(" ");
    if (sp > 0) { url = rest.substring(0, sp); title = rest.substring(sp + 1).trim(); }
  }
  if (title.length >= 2) title = title.substring(1, title.length - 1);
  return new Definition(normalizeLabel(t.substring(1, close)), url, title);
}

/** One link found by the inline scanner. */
export class Link {
  constructor(public kind: string, public text: string, public url: string, public title: string, public line: i32) {}
}

/** Bracket text starting at s[i] == "[": index just past the matching "]", or -1. */
function matchBracket(s: string, i: i32): i32 {
  let depth = 0;
  for (let k = i; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c == 0x5c) { k++; continue; }
    if (c == 0x60) { const e = codeSpanEnd(s, k); if (e > 0) { k = e - 1; continue; } }
    if (c == 0x5b) depth++;
    else if (c == 0x5d && --depth == 0) return k + 1;
  }
  return -1;
}

/** End (exclusive) of the code span opening at s[i] == "`", or -1. */
function codeSpanEnd(s: string, i: i32): i32 {
  let n = 0;
  while (i + n < s.length && s.charCodeAt(i + n) == 0x60) n++;
  const run = "`".repeat(n);
  let k = i + n;
  while (true) {
    const e = s.indexOf(run, k);
    if (e < 0) return -1;
    let m = e;
    while (m < s.length && s.charCodeAt(m) == 0x60) m++;
    if (m - e == n) return m;
    k = m;
  }
}

/** Scans inline syntax, producing plain text and collecting links. */
export class Inline {
  links: Link[] = [];
  keepUrls: bool = false;
  line: i32 = 0;
  constructor(public defs: Map<string, Definition>) {}

  /** Plain text of `s`; links found go to this.links. */
  text(s: string): string {
    const out = new Array<string>();
    let run = 0; // start of the pending plain run s[run, i)
    let i = 0;
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (!isSpecial(c)) { i++; continue; }
      let end = -1; // where a construct starting at i ends, if one does
      const mark = out.length;
      if (run < i) out.push(s.substring(run, i));
      if (c == 0x5c && i + 1 < s.length && isPunct(s.charCodeAt(i + 1))) {
        out.push(s.charAt(i + 1));
        end = i + 2;
      } else if (c == 0x60) {
        end = codeSpanEnd(s, i);
        if (end > 0) {
          let n = 0;
          while (s.charCodeAt(i + n) == 0x60) n++;
          out.push(s.substring(i + n, end - n).trim());
        }
      } else if (c == 0x5b || (c == 0x21 && i + 1 < s.length && s.charCodeAt(i + 1) == 0x5b)) {
        end = this.link(s, c == 0x21 ? i + 1 : i, c == 0x21, out);
      } else if (c == 0x3c) {
        end = this.angle(s, i, out);
      } else if ((c == 0x68 || c == 0x77) && (i == 0 || !isAlnum(s.charCodeAt(i - 1)))) {
        end = this.bare(s, i, out);
      } else if (c == 0x2a || c == 0x5f || c == 0x7e) {
        let n = 0;
        while (i + n < s.length && s.charCodeAt(i + n) == c) n++;
        const before = i > 0 ? s.charCodeAt(i - 1) : 0x20;
        const after = i + n < s.length ? s.charCodeAt(i + n) : 0x20;
        const flanking = !isSpace(before) || !isSpace(after);
        const intraword = isAlnum(before) && isAlnum(after);
        const drop = c == 0x7e ? n == 2 : flanking && !(c == 0x5f && intraword);
        if (!drop) out.push(s.substr(i, n));
        end = i + n;
      } else if (c == 0x26) {
        end = entity(s, i, out);
      }
      if (end > 0) {
        i = end;
        run = end;
      } else {
        out.length = mark; // nothing consumed: the character stays in the run
        i++;
      }
    }
    if (run < s.length) out.push(s.substring(run));
    return out.join("");
  }

  /** [text](url "title"), [text][ref], [text][] or [text]; returns the end index or -1. */
  link(s: string, i: i32, image: bool, out: string[]): i32 {
    const close = matchBracket(s, i);
    if (close < 0) return -1;
    const label = s.substring(i + 1, close - 1);
    const saved = this.links.length;
    const text = this.text(label);
    let url = "", title = "", kind = image ? "image" : "inline", end = -1;
    if (close < s.length && s.charCodeAt(close) == 0x28) {
      let depth = 0;
      for (let k = close; k < s.length; k++) {
        const c = s.charCodeAt(k);
        if (c == 0x5c) { k++; continue; }
        if (c == 0x28) depth++;
        else if (c == 0x29 && --depth == 0) { end = k + 1; break; }
      }
      if (end < 0) { this.links.length = saved; return -1; }
      let dest = s.substring(close + 1, end - 1).trim();
      if (dest.startsWith("<") && dest.includes(">")) {
        const g = dest.indexOf(">");
        url = dest.substring(1, g);
        title = dest.substring(g + 1).trim();
      } else {
        const sp = dest.indexOf(" ");
        url = sp < 0 ? dest : dest.substring(0, sp);
        title = sp < 0 ? "" : dest.substring(sp + 1).trim();
      }
      if (title.length >= 2) title = title.substring(1, title.length - 1);
    } else {
      let ref = label;
      end = close;
      if (close < s.length && s.charCodeAt(close) == 0x5b) {
        const c2 = matchBracket(s, close);
        if (c2 > 0) { if (c2 - close > 2) ref = s.substring(close + 1, c2 - 1); end = c2; }
      }
      const key = normalizeLabel(ref);
      if (!this.defs.has(key)) { this.links.length = saved; return -1; }
      const d = this.defs.get(key);
      url = d.url;
      title = d.title;
      if (!image) kind = "reference";
    }
    if (image) this.links.length = saved; // a link inside an image's alt text is not a link
    this.links.push(new Link(kind, text, url, title, this.line));
    out.push(text);
    if (this.keepUrls && !image && url.length > 0 && url != text) out.push(" (" + url + ")");
    return end;
  }

  /** <https://...> autolinks and <mail@host>; other <tags> are dropped. */
  angle(s: string, i: i32, out: string[]): i32 {
    const e = s.indexOf(">", i);
    if (e < 0) return -1;
    const inner = s.substring(i + 1, e);
    if (inner.length == 0 || inner.includes(" ")) return -1;
    const colon = inner.indexOf(":");
    const at = inner.indexOf("@");
    if (colon > 1 && isAlnum(inner.charCodeAt(0))) {
      this.links.push(new Link("autolink", inner, inner, "", this.line));
      out.push(inner);
      return e + 1;
    }
    if (at > 0 && !inner.includes("/")) {
      this.links.push(new Link("autolink", inner, "mailto:" + inner, "", this.line));
      out.push(inner);
      return e + 1;
    }
    const c = inner.charCodeAt(0);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2f || c == 0x21) {
      const tag = inner.toLowerCase();
      if (tag == "br" || tag == "br/" || tag == "br /") out.push("\n");
      return e + 1; // an HTML tag: dropped
    }
    return -1;
  }

  /** GFM bare URLs: https://..., http://..., www.... */
  bare(s: string, i: i32, out: string[]): i32 {
    const rest = s.substring(i, i + 8);
    if (!rest.startsWith("https://") && !rest.startsWith("http://") && !rest.startsWith("www.")) return -1;
    let e = i;
    while (e < s.length && !isSpace(s.charCodeAt(e)) && s.charCodeAt(e) != 0x3c) e++;
    // Trailing punctuation is not part of the URL; nor is an unbalanced ")".
    while (e > i) {
      const c = s.charCodeAt(e - 1);
      if (c == 0x2e || c == 0x2c || c == 0x3a || c == 0x3b || c == 0x21 || c == 0x3f || c == 0x22 || c == 0x27 || c == 0x2a || c == 0x5f || c == 0x7e) { e--; continue; }
      if (c == 0x29) {
        const u = s.substring(i, e);
        if (u.split(")").length > u.split("(").length) { e--; continue; }
      }
      break;
    }
    const url = s.substring(i, e);
    if (url.length <= 8) return -1;
    this.links.push(new Link("bare", url, url.startsWith("www.") ? "http://" + url : url, "", this.line));
    out.push(url);
    return e;
  }
}

/** Decodes &amp; &lt; &gt; &quot; &apos; &nbsp; &#N; &#xH; at s[i]. */
function entity(s: string, i: i32, out: string[]): i32 {
  const semi = s.indexOf(";", i);
  if (semi < 0 || semi - i > 10) return -1;
  const name = s.substring(i + 1, semi);
  let ch = "";
  if (name == "amp") ch = "&";
  else if (name == "lt") ch = "<";
  else if (name == "gt") ch = ">";
  else if (name == "quot") ch = "\"";
  else if (name == "apos") ch = "'";
  else if (name == "nbsp") ch = " ";
  else if (name.startsWith("#")) {
    const hex = name.startsWith("#x") || name.startsWith("#X");
    const cp = I32.parseInt(name.substring(hex ? 2 : 1), hex ? 16 : 10);
    if (cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp < 0xe000)) ch = String.fromCodePoint(cp);
  }
  if (ch.length == 0) return -1;
  out.push(ch);
  return semi + 1;
}
