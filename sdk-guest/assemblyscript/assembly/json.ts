// A small JSON layer for AssemblyScript: a JSONValue tree, a strict RFC 8259
// parser with a nesting limit, and a compact serializer. No compiler
// transform and no host imports, so it can be tested on its own.
//
// AssemblyScript has no exceptions: parseJSON returns null on bad input and
// jsonError() says why and where.

/** The kind of a JSONValue. */
export enum JSONKind { Null, Bool, Number, String, Array, Object }

/** How deeply arrays and objects may nest in parseJSON's input. */
export const DEFAULT_MAX_DEPTH: i32 = 128;

/** A JSON value: one of the JSONKinds, with its payload in b, n, s or items/keys. */
export class JSONValue {
  kind: JSONKind = JSONKind.Null;
  b: bool = false;
  n: f64 = 0;
  s: string = "";
  /** Array items, or object values (parallel to `keys`). */
  items: JSONValue[] | null = null;
  keys: string[] | null = null;

  static null(): JSONValue { return new JSONValue(); }
  static bool(b: bool): JSONValue { const v = new JSONValue(); v.kind = JSONKind.Bool; v.b = b; return v; }
  static number(n: f64): JSONValue { const v = new JSONValue(); v.kind = JSONKind.Number; v.n = n; return v; }
  static string(s: string): JSONValue { const v = new JSONValue(); v.kind = JSONKind.String; v.s = s; return v; }
  static array(): JSONValue { const v = new JSONValue(); v.kind = JSONKind.Array; v.items = []; return v; }
  static object(): JSONValue {
    const v = new JSONValue(); v.kind = JSONKind.Object; v.items = []; v.keys = []; return v;
  }

  get isNull(): bool { return this.kind == JSONKind.Null; }
  get isBool(): bool { return this.kind == JSONKind.Bool; }
  get isNumber(): bool { return this.kind == JSONKind.Number; }
  get isString(): bool { return this.kind == JSONKind.String; }
  get isArray(): bool { return this.kind == JSONKind.Array; }
  get isObject(): bool { return this.kind == JSONKind.Object; }

  /** Number of array items or object members; 0 otherwise. */
  get length(): i32 { const it = this.items; return it == null ? 0 : it.length; }

  /** The array item at i, or null. */
  at(i: i32): JSONValue | null {
    const it = this.items;
    if (this.kind != JSONKind.Array || it == null || i < 0 || i >= it.length) return null;
    return it[i];
  }

  /** The object member `key` (the last one if it repeats), or null. */
  get(key: string): JSONValue | null {
    const ks = this.keys;
    if (ks == null) return null;
    for (let i = ks.length - 1; i >= 0; i--) if (ks[i] == key) return this.items![i];
    return null;
  }

  /** The key of member i of an object. */
  keyAt(i: i32): string { return this.keys![i]; }

  /** Sets `key` on an object (replacing it if present) and returns the object. */
  set(key: string, v: JSONValue): JSONValue {
    const ks = this.keys;
    if (ks == null) return this;
    for (let i = ks.length - 1; i >= 0; i--) {
      if (ks[i] == key) { this.items![i] = v; return this; }
    }
    ks.push(key);
    this.items!.push(v);
    return this;
  }
  setString(key: string, s: string): JSONValue { return this.set(key, JSONValue.string(s)); }
  setNumber(key: string, n: f64): JSONValue { return this.set(key, JSONValue.number(n)); }
  setBool(key: string, b: bool): JSONValue { return this.set(key, JSONValue.bool(b)); }

  /** Appends to an array and returns the array. */
  push(v: JSONValue): JSONValue {
    if (this.kind == JSONKind.Array) this.items!.push(v);
    return this;
  }

  /** The JSON type name: "null", "boolean", "number", "string", "array", "object". */
  typeName(): string {
    switch (this.kind) {
      case JSONKind.Bool: return "boolean";
      case JSONKind.Number: return "number";
      case JSONKind.String: return "string";
      case JSONKind.Array: return "array";
      case JSONKind.Object: return "object";
    }
    return "null";
  }

  /** Compact JSON text. Non-finite numbers become null. */
  stringify(): string {
    const parts = new Array<string>();
    writeValue(this, parts);
    return parts.join("");
  }

  toString(): string { return this.stringify(); }
}

let lastError = "";

/** Why the last parseJSON call returned null ("" after a success). */
export function jsonError(): string { return lastError; }

/** Parses one JSON document; null on error (see jsonError). */
export function parseJSON(text: string, maxDepth: i32 = DEFAULT_MAX_DEPTH): JSONValue | null {
  const p = new Parser(text, maxDepth);
  const v = p.value();
  if (v != null) {
    p.ws();
    if (p.i < text.length) return p.fail("unexpected text after the JSON value");
  }
  return v;
}

/** A string member of obj, or null if obj is null or the member is absent or not a string. */
export function stringField(obj: JSONValue | null, key: string): string | null {
  if (obj == null) return null;
  const v = obj.get(key);
  return v != null && v.isString ? v.s : null;
}

/** A string member of obj, or `dflt` if obj is null or the member is absent or not a string. */
export function stringOr(obj: JSONValue | null, key: string, dflt: string): string {
  const s = stringField(obj, key);
  return s == null ? dflt : s;
}

class Parser {
  i: i32 = 0;
  depth: i32 = 0;
  constructor(public s: string, public max: i32) {}

  fail(msg: string): JSONValue | null {
    if (lastError == "") lastError = msg + " at offset " + this.i.toString();
    return null;
  }
  peek(): i32 { return this.i < this.s.length ? this.s.charCodeAt(this.i) : -1; }
  ws(): void {
    for (let c = this.peek(); c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d; c = this.peek()) this.i++;
  }

  value(): JSONValue | null {
    lastError = "";
    return this.any();
  }

  any(): JSONValue | null {
    this.ws();
    const c = this.peek();
    if (c == 0x7b) return this.object();
    if (c == 0x5b) return this.array();
    if (c == 0x22) { const s = this.string(); return s == null ? null : JSONValue.string(s); }
    if (c == 0x74) return this.literal("true", JSONValue.bool(true));
    if (c == 0x66) return this.literal("false", JSONValue.bool(false));
    if (c == 0x6e) return this.literal("null", JSONValue.null());
    if (c == 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    return this.fail(c < 0 ? "unexpected end of input" : "expected a JSON value");
  }

  literal(word: string, v: JSONValue): JSONValue | null {
    if (this.s.substr(this.i, word.length) != word) return this.fail("expected a JSON value");
    this.i += word.length;
    return v;
  }

  enter(): bool {
    if (++this.depth > this.max) {
      this.fail("nesting deeper than " + this.max.toString() + " levels");
      return false;
    }
    this.i++;
    return true;
  }

  /**
   * At a container's opening bracket: 1 past it when items follow, 0 past
   * `close` too when it is empty, -1 after fail (nested too deep).
   */
  open(close: i32): i32 {
    if (!this.enter()) return -1;
    this.ws();
    if (this.peek() != close) return 1;
    this.i++;
    this.depth--;
    return 0;
  }

  /**
   * After a container's item: 1 past a ',' (another item follows), 0 past
   * `close` (the container ends), -1 after fail (`what`: "array", "object").
   */
  more(close: i32, what: string): i32 {
    this.ws();
    const c = this.peek();
    if (c == 0x2c) { this.i++; return 1; }
    if (c == close) { this.i++; this.depth--; return 0; }
    this.fail(c < 0 ? "unexpected end of input in an " + what : "expected ',' or '" + String.fromCharCode(close) + "'");
    return -1;
  }

  array(): JSONValue | null {
    const out = JSONValue.array();
    let m = this.open(0x5d);
    while (m > 0) {
      const v = this.any();
      if (v == null) return null;
      out.items!.push(v);
      m = this.more(0x5d, "array");
    }
    return m == 0 ? out : null;
  }

  object(): JSONValue | null {
    const out = JSONValue.object();
    let m = this.open(0x7d);
    while (m > 0) {
      this.ws();
      if (this.peek() != 0x22) return this.fail("expected a string key");
      const k = this.string();
      if (k == null) return null;
      this.ws();
      if (this.peek() != 0x3a) return this.fail("expected ':'");
      this.i++;
      const v = this.any();
      if (v == null) return null;
      out.keys!.push(k);
      out.items!.push(v);
      m = this.more(0x7d, "object");
    }
    return m == 0 ? out : null;
  }

  hex4(): i32 {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = this.peek();
      let d = -1;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x61 + 10;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x41 + 10;
      if (d < 0) { this.fail("expected 4 hex digits after \\u"); return -1; }
      v = v * 16 + d;
      this.i++;
    }
    return v;
  }

  string(): string | null {
    this.i++; // opening quote
    const parts = new Array<string>();
    let run = this.i;
    while (true) {
      const c = this.peek();
      if (c < 0) { this.fail("unterminated string"); return null; }
      if (c == 0x22) break;
      if (c < 0x20) { this.fail("control character in string (escape it)"); return null; }
      if (c != 0x5c) { this.i++; continue; }
      parts.push(this.s.substring(run, this.i));
      this.i++;
      const e = this.peek();
      this.i++;
      if (e == 0x22) parts.push("\"");
      else if (e == 0x5c) parts.push("\\");
      else if (e == 0x2f) parts.push("/");
      else if (e == 0x62) parts.push("\b");
      else if (e == 0x66) parts.push("\f");
      else if (e == 0x6e) parts.push("\n");
      else if (e == 0x72) parts.push("\r");
      else if (e == 0x74) parts.push("\t");
      else if (e == 0x75) {
        const at = this.i - 2;
        const hi = this.hex4();
        if (hi < 0) return null;
        if (hi >= 0xdc00 && hi < 0xe000) { this.i = at; this.fail("unpaired surrogate in \\u escape"); return null; }
        if (hi >= 0xd800 && hi < 0xdc00) {
          if (this.s.substr(this.i, 2) != "\\u") { this.i = at; this.fail("unpaired surrogate in \\u escape"); return null; }
          this.i += 2;
          const lo = this.hex4();
          if (lo < 0) return null;
          if (lo < 0xdc00 || lo >= 0xe000) { this.i = at; this.fail("unpaired surrogate in \\u escape"); return null; }
          parts.push(String.fromCharCode(hi, lo));
        } else {
          parts.push(String.fromCharCode(hi));
        }
      } else {
        this.i -= 1;
        this.fail("invalid escape in string");
        return null;
      }
      run = this.i;
    }
    parts.push(this.s.substring(run, this.i));
    this.i++; // closing quote
    return parts.length == 1 ? parts[0] : parts.join("");
  }

  digits(): bool {
    const c = this.peek();
    if (c < 0x30 || c > 0x39) { this.fail("expected a digit"); return false; }
    while (this.peek() >= 0x30 && this.peek() <= 0x39) this.i++;
    return true;
  }

  number(): JSONValue | null {
    const start = this.i;
    if (this.peek() == 0x2d) this.i++;
    const c = this.peek();
    if (c == 0x30) this.i++;
    else if (!this.digits()) return null;
    if (this.peek() == 0x2e) { this.i++; if (!this.digits()) return null; }
    if (this.peek() == 0x65 || this.peek() == 0x45) {
      this.i++;
      if (this.peek() == 0x2b || this.peek() == 0x2d) this.i++;
      if (!this.digits()) return null;
    }
    const n = parseFloat(this.s.substring(start, this.i));
    if (!isFinite(n)) { this.i = start; return this.fail("number out of range"); }
    return JSONValue.number(n);
  }
}

function writeValue(v: JSONValue, out: string[]): void {
  switch (v.kind) {
    case JSONKind.Null: out.push("null"); return;
    case JSONKind.Bool: out.push(v.b ? "true" : "false"); return;
    case JSONKind.Number: out.push(formatNumber(v.n)); return;
    case JSONKind.String: writeString(v.s, out); return;
    case JSONKind.Array: {
      out.push("[");
      const it = v.items!;
      for (let i = 0; i < it.length; i++) {
        if (i > 0) out.push(",");
        writeValue(it[i], out);
      }
      out.push("]");
      return;
    }
    default: {
      out.push("{");
      const ks = v.keys!;
      const it = v.items!;
      for (let i = 0; i < ks.length; i++) {
        if (i > 0) out.push(",");
        writeString(ks[i], out);
        out.push(":");
        writeValue(it[i], out);
      }
      out.push("}");
    }
  }
}

/** JSON text for a number: integers without ".0", non-finite as null. */
export function formatNumber(n: f64): string {
  if (!isFinite(n)) return "null";
  if (n == Math.trunc(n) && Math.abs(n) < 9007199254740992) return (<i64>n).toString();
  return n.toString();
}

const HEX = "0123456789abcdef";

/** Appends `s` as a JSON string literal. Lone surrogates are escaped. */
export function writeString(s: string, out: string[]): void {
  out.push("\"");
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | null = null;
    if (c == 0x22) esc = "\\\"";
    else if (c == 0x5c) esc = "\\\\";
    else if (c == 0x0a) esc = "\\n";
    else if (c == 0x0d) esc = "\\r";
    else if (c == 0x09) esc = "\\t";
    else if (c == 0x08) esc = "\\b";
    else if (c == 0x0c) esc = "\\f";
    else if (c >= 0xd800 && c < 0xe000) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c < 0xdc00 && next >= 0xdc00 && next < 0xe000) { i++; continue; } // a valid pair
    }
    if (esc == null && (c < 0x20 || (c >= 0xd800 && c < 0xe000))) {
      esc = "\\u" + HEX.charAt((c >> 12) & 15) + HEX.charAt((c >> 8) & 15) + HEX.charAt((c >> 4) & 15) + HEX.charAt(c & 15);
    }
    if (esc != null) {
      out.push(s.substring(run, i));
      out.push(esc);
      run = i + 1;
    }
  }
  out.push(s.substring(run));
  out.push("\"");
}
