// RFC 6570 URI templates, read backwards: does a URI match a template, and
// with which variable values. Supported: every operator of levels 1-3
// ({var}, {+var}, {#var}, {.var}, {/var}, {;var}, {?var}, {&var}, several
// variables per expression) and the prefix modifier {var:3}. The explode
// modifier {var*} is supported on the last variable of an unnamed
// expression ({/path*}): it receives the rest of the expression as it
// appears, separators included.
//
// Values of the operators that percent-encode reserved characters ({var},
// {.var}, {/var}, {;var}, {?var}, {&var}) are percent-decoded. {+var} and
// {#var} values are handed over as they appear in the URI: those operators
// pass percent-encoded triplets through, so decoding would not undo them.
// Like the host's matcher, a URI must be percent-encoded where the template
// expects it: a value of {var} is unreserved characters and %XX triplets
// (and commas, when the expression has one variable).

const MAX_PREFIX = 9999;

class VarSpec {
  constructor(public name: string, public maxLength: i32, public explode: bool) {}
}

class Part {
  /** A literal (op < 0) or an expression: op is 0 for simple, else the operator's char code. */
  constructor(public op: i32, public literal: string, public vars: VarSpec[]) {}

  get first(): string {
    return this.op == 0 || this.op == 0x2b ? "" : String.fromCharCode(this.op);
  }
  get sep(): string {
    if (this.op == 0x2e) return ".";
    if (this.op == 0x2f) return "/";
    if (this.op == 0x3b) return ";";
    if (this.op == 0x3f || this.op == 0x26) return "&";
    return ",";
  }
  get named(): bool { return this.op == 0x3b || this.op == 0x3f || this.op == 0x26; }
  /** Whether values may hold reserved characters unencoded ({+var}, {#var}). */
  get reserved(): bool { return this.op == 0x2b || this.op == 0x23; }
}

function isAlpha(c: i32): bool { return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a); }
function isDigit(c: i32): bool { return c >= 0x30 && c <= 0x39; }
function isHex(c: i32): bool { return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66); }
function isUnreserved(c: i32): bool { return isAlpha(c) || isDigit(c) || c == 0x2d || c == 0x2e || c == 0x5f || c == 0x7e; }
/** RFC 3986 gen-delims and sub-delims. */
function isReserved(c: i32): bool { return c > 0 && ":/?#[]@!$&'()*+,;=".includes(String.fromCharCode(c)); }
function hexVal(c: i32): i32 { return isDigit(c) ? c - 0x30 : (c | 0x20) - 0x61 + 10; }

function isPctAt(s: string, i: i32): bool {
  return s.charCodeAt(i) == 0x25 && i + 2 < s.length && isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2));
}

/** Decodes %XX triplets (as UTF-8); other characters are kept. */
export function percentDecode(s: string): string {
  if (!s.includes("%")) return s;
  const bytes = new Array<u8>();
  for (let i = 0; i < s.length; i++) {
    if (isPctAt(s, i)) {
      bytes.push(<u8>(hexVal(s.charCodeAt(i + 1)) * 16 + hexVal(s.charCodeAt(i + 2))));
      i += 2;
      continue;
    }
    const enc = Uint8Array.wrap(String.UTF8.encode(s.charAt(i)));
    for (let k = 0; k < enc.length; k++) bytes.push(enc[k]);
  }
  const buf = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) buf[i] = bytes[i];
  return String.UTF8.decode(buf.buffer);
}

/**
 * A parsed URI template. Check `error` after construction: "" when the
 * template is valid, else what is wrong with it.
 */
export class URITemplate {
  /** Why the template is invalid, or "". */
  error: string = "";
  private parts: Part[] = [];

  /** Parses `text`; see `error`. */
  constructor(public text: string) {
    this.parse(text);
  }

  private parse(text: string): void {
    let lit = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c == 0x7d) { this.error = "unmatched '}' at offset " + i.toString(); return; }
      if (c != 0x7b) continue;
      if (i > lit) this.parts.push(new Part(-1, text.substring(lit, i), []));
      const end = text.indexOf("}", i);
      if (end < 0) { this.error = "unclosed '{' at offset " + i.toString(); return; }
      if (!this.expression(text.substring(i + 1, end), i)) return;
      i = end;
      lit = end + 1;
    }
    if (lit < text.length) this.parts.push(new Part(-1, text.substring(lit), []));
  }

  private expression(body: string, at: i32): bool {
    let op = body.length > 0 ? body.charCodeAt(0) : 0;
    if ("=,!@|".includes(String.fromCharCode(op))) {
      this.error = "operator '" + String.fromCharCode(op) + "' at offset " + at.toString() + " is reserved by RFC 6570";
      return false;
    }
    if ("+#./;?&".includes(String.fromCharCode(op))) body = body.substring(1);
    else op = 0;
    const specs = body.split(",");
    const vars = new Array<VarSpec>();
    for (let k = 0; k < specs.length; k++) {
      let spec = specs[k];
      let max = 0;
      let explode = false;
      const colon = spec.indexOf(":");
      if (colon >= 0) {
        const digits = spec.substring(colon + 1);
        let ok = digits.length > 0 && digits.length <= 4 && digits.charCodeAt(0) != 0x30;
        for (let d = 0; d < digits.length; d++) ok = ok && isDigit(digits.charCodeAt(d));
        if (!ok) { this.error = "bad prefix modifier in {" + body + "} (want :1 to :" + MAX_PREFIX.toString() + ")"; return false; }
        max = I32.parseInt(digits);
        spec = spec.substring(0, colon);
      } else if (spec.endsWith("*")) {
        explode = true;
        spec = spec.substring(0, spec.length - 1);
      }
      if (!validVarName(spec)) { this.error = "bad variable name \"" + spec + "\" at offset " + at.toString(); return false; }
      vars.push(new VarSpec(spec, max, explode));
    }
    const part = new Part(op, "", vars);
    for (let k = 0; k < vars.length; k++) {
      if (vars[k].explode && (part.named || k < vars.length - 1)) {
        this.error = "{" + body + "}: the SDK matches explode (*) only on the last variable of an unnamed expression";
        return false;
      }
    }
    this.parts.push(part);
    return true;
  }

  /** The variable names, in order of appearance. */
  get varNames(): string[] {
    const out = new Array<string>();
    for (let i = 0; i < this.parts.length; i++) {
      const vs = this.parts[i].vars;
      for (let k = 0; k < vs.length; k++) if (!out.includes(vs[k].name)) out.push(vs[k].name);
    }
    return out;
  }

  /**
   * The variables of `uri` if it matches, else null. A variable the URI
   * leaves out (an optional {?q}) is absent from the map.
   */
  match(uri: string): Map<string, string> | null {
    if (this.error.length > 0) return null;
    const out = new Map<string, string>();
    return this.matchFrom(uri, 0, 0, out) ? out : null;
  }

  private matchFrom(uri: string, k: i32, pos: i32, out: Map<string, string>): bool {
    if (k == this.parts.length) return pos == uri.length;
    const part = this.parts[k];
    if (part.op < 0) {
      const lit = part.literal;
      return uri.substr(pos, lit.length) == lit && this.matchFrom(uri, k + 1, pos + lit.length, out);
    }
    // The longest run this expression could cover, then shorter ones.
    let end = pos;
    while (end < uri.length) {
      if (isPctAt(uri, end)) { end += 3; continue; }
      if (!allowed(part, uri.charCodeAt(end))) break;
      end++;
    }
    for (let e = end; e >= pos; e--) {
      const local = new Map<string, string>();
      if (!bind(part, uri.substring(pos, e), local)) continue;
      // A variable used twice must have the same value both times.
      const added = new Array<string>();
      const names = local.keys();
      let same = true;
      for (let i = 0; i < names.length; i++) {
        const n = names[i];
        if (!out.has(n)) { out.set(n, local.get(n)); added.push(n); }
        else if (out.get(n) != local.get(n)) same = false;
      }
      if (same && this.matchFrom(uri, k + 1, e, out)) return true;
      for (let i = 0; i < added.length; i++) out.delete(added[i]);
    }
    return false;
  }
}

function validVarName(s: string): bool {
  if (s.length == 0 || s.startsWith(".") || s.endsWith(".") || s.includes("..")) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isPctAt(s, i)) { i += 2; continue; }
    if (!isAlpha(c) && !isDigit(c) && c != 0x5f && c != 0x2e) return false;
  }
  return true;
}

/** Whether c may appear in the text of this expression. */
function allowed(part: Part, c: i32): bool {
  if (isUnreserved(c) || c == 0x2c) return true;
  if (part.reserved) return isReserved(c);
  if (part.named && c == 0x3d) return true;
  return part.first == String.fromCharCode(c) || part.sep == String.fromCharCode(c);
}

/** Whether s may be a value of this expression (after any separators are split off). */
function validValue(part: Part, s: string, commaOK: bool): bool {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isPctAt(s, i)) { i += 2; continue; }
    if (c == 0x25) return false;
    if (part.reserved ? !(isUnreserved(c) || isReserved(c)) : !(isUnreserved(c) || (commaOK && c == 0x2c))) return false;
  }
  return true;
}

function setVar(part: Part, spec: VarSpec, raw: string, out: Map<string, string>): bool {
  const value = part.reserved || spec.explode ? raw : percentDecode(raw);
  if (spec.maxLength > 0 && value.length > spec.maxLength) return false;
  out.set(spec.name, value);
  return true;
}

/** Assigns the text `s` of one expression to its variables; false if it cannot be its expansion. */
function bind(part: Part, s: string, out: Map<string, string>): bool {
  const vars = part.vars;
  const first = part.first;
  if (first.length > 0) {
    if (s.length == 0) return true; // every variable undefined
    if (!s.startsWith(first)) return false;
    s = s.substring(first.length);
  }
  if (part.named) {
    const items = s.split(part.sep);
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const eq = item.indexOf("=");
      const name = eq < 0 ? item : item.substring(0, eq);
      const value = eq < 0 ? "" : item.substring(eq + 1);
      if (eq < 0 && part.op != 0x3b) return false; // only {;x} drops "=" for an empty value
      let spec: VarSpec | null = null;
      for (let v = 0; v < vars.length; v++) if (vars[v].name == name) spec = vars[v];
      if (spec == null || out.has(name) || !validValue(part, value, false)) return false;
      if (!setVar(part, spec, value, out)) return false;
    }
    return true;
  }
  const last = vars[vars.length - 1];
  if (vars.length == 1) {
    // One variable: commas (and, for explode, separators) belong to the value.
    return validValue(part, last.explode ? s.replaceAll(part.sep, "") : s, true) && setVar(part, last, s, out);
  }
  const items = s.split(part.sep);
  if (items.length > vars.length && !last.explode) return false;
  for (let i = 0; i < items.length && i < vars.length; i++) {
    let raw = items[i];
    if (i == vars.length - 1 && items.length > vars.length) raw = items.slice(i).join(part.sep);
    if (!validValue(part, last.explode && i == vars.length - 1 ? raw.replaceAll(part.sep, "") : raw, false)) return false;
    if (!setVar(part, vars[i], raw, out)) return false;
  }
  return true;
}
