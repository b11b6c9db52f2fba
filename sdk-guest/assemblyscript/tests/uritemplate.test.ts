// URI template matching tests, compiled by tests/run.mjs and run under Node.
import { URITemplate, percentDecode } from "../assembly/uritemplate";

const failures = new Array<string>();

function check(ok: bool, what: string): void {
  if (!ok) failures.push(what);
}

function show(m: Map<string, string> | null): string {
  if (m == null) return "no match";
  const keys = m.keys().sort();
  const parts = new Array<string>();
  for (let i = 0; i < keys.length; i++) parts.push(keys[i] + "=" + m.get(keys[i]));
  return parts.join(" ");
}

/** `want` is "no match" or the variables as "k=v k=v" in key order. */
function match(template: string, uri: string, want: string): void {
  const t = new URITemplate(template);
  check(t.error == "", template + ": unexpected error " + t.error);
  const got = show(t.match(uri));
  check(got == want, template + " on " + uri + ": got [" + got + "], want [" + want + "]");
}

function invalid(template: string, want: string): void {
  const t = new URITemplate(template);
  check(t.error.includes(want), template + ": error [" + t.error + "], want [" + want + "]");
  check(t.match(template) == null, template + ": an invalid template matched");
}

export function run(): string {
  // Literals only.
  match("parity://about", "parity://about", "");
  match("parity://about", "parity://about/", "no match");

  // Simple {var}: unreserved characters and %XX, decoded.
  match("parity://items/{id}", "parity://items/2", "id=2");
  match("parity://items/{id}", "parity://items/", "id=");
  match("parity://items/{id}", "parity://items/a/b", "no match");
  match("parity://items/{id}", "parity://items/a%20b%2Fc", "id=a b/c");
  match("parity://items/{id}", "parity://items/caf%C3%A9", "id=café");
  match("parity://items/{id}", "parity://items/a b", "no match");
  match("parity://items/{id}", "parity://items/50%", "no match");
  match("parity://items/{id}", "parity://items/x,y", "id=x,y");
  match("weather://{city}/today", "weather://paris/today", "city=paris");
  match("weather://{city}/today", "weather://paris/tomorrow", "no match");
  match("u://{a}-{b}", "u://x-y-z", "a=x-y b=z"); // greedy, like the host's regexp
  match("u://{a}/{b}", "u://x/y", "a=x b=y");
  match("u://{x,y}", "u://1,2", "x=1 y=2");
  match("u://{x,y}", "u://1", "x=1");
  match("u://{x,y}", "u://1,2,3", "no match");
  match("u://{a}/{a}", "u://1/1", "a=1"); // a variable used twice has one value
  match("u://{a}/{a}", "u://1/2", "no match");

  // Reserved {+var}: reserved characters kept, %XX not decoded.
  match("file:///{+path}", "file:///home/ada/notes.md", "path=home/ada/notes.md");
  match("file:///{+path}", "file:///a%20b?x=1#y", "path=a%20b?x=1#y");
  match("file:///{+path}/raw", "file:///a/b/raw", "path=a/b");
  match("file:///{+path}", "file:///a b", "no match");

  // Fragment, label, path segments.
  match("doc://x{#section}", "doc://x#intro/2", "section=intro/2");
  match("doc://x{#section}", "doc://x", "");
  match("img://{name}{.ext}", "img://logo.png", "name=logo.png"); // greedy: '.' is unreserved
  match("img://file{.ext}", "img://file.tar.gz", "ext=tar.gz");
  match("api://v1{/kind,id}", "api://v1/users/42", "id=42 kind=users");
  match("api://v1{/kind,id}", "api://v1/users", "kind=users");
  match("api://v1{/kind,id}", "api://v1/a/b/c", "no match");
  match("api://v1{/kind}", "api://v1/a%2Fb", "kind=a/b");
  match("dir://root{/segs*}", "dir://root/a/b/c", "segs=a/b/c");
  match("dir://root{/segs*}", "dir://root", "");

  // Named: path parameters and queries, in any order, optional.
  match("search://q{?q,lang}", "search://q?q=rust&lang=en", "lang=en q=rust");
  match("search://q{?q,lang}", "search://q?lang=en&q=a%26b", "lang=en q=a&b");
  match("search://q{?q,lang}", "search://q?q=x", "q=x");
  match("search://q{?q,lang}", "search://q", "");
  match("search://q{?q,lang}", "search://q?other=1", "no match");
  match("search://q{?q,lang}", "search://q?q=1&q=2", "no match");
  match("search://q{?q}{&page}", "search://q?q=x&page=3", "page=3 q=x");
  match("m://x{;a,b}", "m://x;a=1;b", "a=1 b=");

  // Prefix modifier: at most n characters.
  match("p://{id:3}", "p://abc", "id=abc");
  match("p://{id:3}", "p://abcd", "no match");

  // Invalid templates.
  invalid("p://{id", "unclosed '{'");
  invalid("p://id}", "unmatched '}'");
  invalid("p://{}", "bad variable name");
  invalid("p://{a b}", "bad variable name");
  invalid("p://{=x}", "is reserved by RFC 6570");
  invalid("p://{x:0}", "bad prefix modifier");
  invalid("p://{x:10000}", "bad prefix modifier");
  invalid("p://{?q*}", "explode (*)");
  invalid("p://{/a*,b}", "explode (*)");

  const vars = new URITemplate("x://{a}{/b,a}{?c}").varNames;
  check(vars.join(",") == "a,b,c", "varNames: " + vars.join(","));
  check(percentDecode("a%2Fb%zz%") == "a/b%zz%", "percentDecode keeps broken triplets: " + percentDecode("a%2Fb%zz%"));
  check(percentDecode("%F0%9F%98%80") == "😀", "percentDecode UTF-8");
  return failures.join("\n");
}
