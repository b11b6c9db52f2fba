// JSON layer tests, compiled by tests/run.mjs and run under Node.
import { JSONValue, parseJSON, jsonError, formatNumber, DEFAULT_MAX_DEPTH } from "../assembly/json";

const failures = new Array<string>();

function check(ok: bool, what: string): void {
  if (!ok) failures.push(what);
}

function str(text: string, want: string): void {
  const v = parseJSON(text);
  check(v != null && v.isString && v.s == want, "string " + text + " -> " + (v == null ? jsonError() : v.stringify()));
}

function bad(text: string, want: string): void {
  const v = parseJSON(text);
  check(v == null && jsonError().includes(want), "want error '" + want + "' for " + text + ", got " + (v == null ? jsonError() : v.stringify()));
}

function num(text: string, want: f64): void {
  const v = parseJSON(text);
  check(v != null && v.isNumber && v.n == want, "number " + text + " -> " + (v == null ? jsonError() : v.stringify()));
}

function roundTrip(text: string, want: string): void {
  const v = parseJSON(text);
  check(v != null && v.stringify() == want, "round trip " + text + " -> " + (v == null ? jsonError() : v.stringify()));
}

function nest(open: string, close: string, n: i32): string {
  return open.repeat(n) + "1" + close.repeat(n);
}

export function run(): string {
  // Scalars and numbers.
  check(parseJSON("null")!.isNull, "null");
  check(parseJSON(" true ")!.b == true, "true");
  check(parseJSON("\n\tfalse\r\n")!.isBool, "false");
  num("0", 0); num("-12", -12); num("1.5", 1.5); num("-0.25e2", -25); num("1E+3", 1000); num("2e-3", 0.002);
  num("9007199254740993", 9007199254740992); // beyond 2^53: rounds, as in JavaScript
  for (let i = 0, b = ["01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "1.2.3", "--1"]; i < b.length; i++) {
    check(parseJSON(b[i]) == null, "bad number accepted: " + b[i]);
  }
  bad("1e400", "number out of range");

  // Strings and escapes.
  str("\"plain\"", "plain");
  str("\"a\\\"b\\\\c\\/d\"", "a\"b\\c/d");
  str("\"\\b\\f\\n\\r\\t\"", "\b\f\n\r\t");
  str("\"\\u0041\\u00e9\\u20AC\"", "Aé€");
  str("\"\\ud83d\\ude00\"", "😀");
  str("\"x\\uD834\\uDD1Ey\"", "x𝄞y");
  str("\"héllo 😀 日本\"", "héllo 😀 日本");
  bad("\"abc", "unterminated string");
  bad("\"a\\qb\"", "invalid escape");
  bad("\"\\u12\"", "hex digits");
  bad("\"\\ud83d\"", "unpaired surrogate");
  bad("\"\\ud83d\\u0041\"", "unpaired surrogate");
  bad("\"\\ude00\"", "unpaired surrogate");
  bad("\"tab\there\"", "control character");

  // Documents.
  bad("", "unexpected end of input");
  bad("[1,2", "end of input");
  bad("[1,]", "expected a JSON value");
  bad("[1 2]", "expected ',' or ']'");
  bad("{\"a\":1 2}", "expected ',' or '}'");
  bad("[[1]", "unexpected end of input in an array");
  bad("{\"a\":1", "unexpected end of input in an object");
  // Siblings do not add up: a closed container gives its level back.
  let wide = "[";
  for (let k = 0; k < 200; k++) wide += (k > 0 ? "," : "") + "[0],{\"a\":{}},[]";
  check(parseJSON(wide + "]") != null, "200 sibling containers: " + jsonError());
  bad("{\"a\" 1}", "expected ':'");
  bad("{\"a\":1,}", "expected a string key");
  bad("{a:1}", "expected a string key");
  bad("true false", "after the JSON value");
  bad("[1, 2, x]", "at offset 7");
  const v = parseJSON(" { \"a\" : [1, 2.5, \"x\", null, {\"b\": true}], \"c\": {}, \"k\": 1, \"k\": 2 } ")!;
  check(v.get("a")!.at(1)!.n == 2.5, "nested number");
  check(v.get("a")!.at(4)!.get("b")!.b, "nested bool");
  check(v.get("a")!.at(9) == null && v.get("zz") == null, "absent members are null");
  check(v.get("c")!.isObject && v.get("c")!.length == 0, "empty object");
  check(v.get("k")!.n == 2, "last repeated key wins");

  // Depth limit.
  check(parseJSON(nest("[", "]", DEFAULT_MAX_DEPTH)) != null, "depth 128 allowed");
  bad(nest("[", "]", DEFAULT_MAX_DEPTH + 1), "nesting deeper than 128 levels");
  bad(nest("{\"a\":", "}", DEFAULT_MAX_DEPTH + 1), "nesting deeper");
  check(parseJSON("[[1]]", 1) == null && parseJSON("[[1]]", 2) != null, "custom depth");
  bad("[".repeat(100000), "nesting deeper");

  // Serializer.
  check(JSONValue.string("a\"b\\c\n\t\u0001\b\fé😀").stringify() == "\"a\\\"b\\\\c\\n\\t\\u0001\\b\\fé😀\"", "escapes");
  check(JSONValue.string(String.fromCharCode(0xd800)).stringify() == "\"\\ud800\"", "lone surrogate escaped");
  check(formatNumber(2) == "2" && formatNumber(-5) == "-5" && formatNumber(0.1) == "0.1", "numbers");
  check(formatNumber(NaN) == "null" && formatNumber(Infinity) == "null", "non-finite");
  check(parseJSON(formatNumber(1e300))!.n == 1e300 && parseJSON(formatNumber(5e-324))!.n == 5e-324, "extremes");
  const o = JSONValue.object().setNumber("b", 1).set("a", JSONValue.array().push(JSONValue.null()).push(JSONValue.bool(true))).setNumber("b", 2);
  check(o.stringify() == "{\"b\":2,\"a\":[null,true]}", "builder: " + o.stringify());
  roundTrip("{\"name\":\"convert\",\"arguments\":{\"value\":-1.25e-7,\"n\":[1,2,3]}}", "{\"name\":\"convert\",\"arguments\":{\"value\":-1.25e-7,\"n\":[1,2,3]}}");
  roundTrip("[\"\\u0000\\u001f\",\"\\\"\\\\/\",\"\\ud83d\\ude00\"]", "[\"\\u0000\\u001f\",\"\\\"\\\\/\",\"😀\"]");
  roundTrip("{\"\":{\"\":[[],{}]},\"x\":false}", "{\"\":{\"\":[[],{}]},\"x\":false}");
  const fs: f64[] = [0.1, 1.0 / 3.0, 123456.789, 1e21, 2.5e-6, 1.7976931348623157e308];
  for (let i = 0; i < fs.length; i++) {
    const back = parseJSON(formatNumber(fs[i]));
    check(back != null && back.n == fs[i], "float round trip " + formatNumber(fs[i]));
  }
  return failures.join("\n");
}
