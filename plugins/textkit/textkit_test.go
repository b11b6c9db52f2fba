//go:build !wasip1

package main

import (
	"encoding/json"
	"strings"
	"testing"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

func TestListTools(t *testing.T) {
	out, err := mcpwasm.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var l struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range l.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, " "); got != "count regex_find replace slugify diff case" {
		t.Errorf("tools: %s", got)
	}
}

func TestTools(t *testing.T) {
	for _, tc := range []struct {
		tool, args, want string
		isError          bool
	}{
		{"count", `{"text":""}`, `{"characters":0,"bytes":0,"words":0,"lines":0,"non_blank_lines":0,"longest_line":0}`, false},
		{"count", `{"text":"Héllo wörld\n\n  foo bar\r\nlast"}`, `{"characters":28,"bytes":30,"words":5,"lines":4,"non_blank_lines":3,"longest_line":11}`, false},
		{"count", `{"text":"a\n"}`, `{"characters":2,"bytes":2,"words":1,"lines":1,"non_blank_lines":1,"longest_line":1}`, false},

		{"regex_find", `{"text":"on 2024-01-05 and\nné 2023-12-31","pattern":"(\\d{4})-(\\d\\d)-(\\d\\d)"}`,
			`{"count":2,"truncated":false,"matches":[{"match":"2024-01-05","line":1,"column":4,"offset":3,"groups":["2024","01","05"]},{"match":"2023-12-31","line":2,"column":4,"offset":21,"groups":["2023","12","31"]}]}`, false},
		{"regex_find", `{"text":"a=1\nb\nc=3","pattern":"^(?P<k>\\w)(?:=(?P<v>\\d))?$","multiline":true,"max_matches":2}`,
			`{"count":2,"truncated":true,"matches":[{"match":"a=1","line":1,"column":1,"offset":0,"groups":["a","1"],"named":{"k":"a","v":"1"}},{"match":"b","line":2,"column":1,"offset":4,"groups":["b",null],"named":{"k":"b"}}]}`, false},
		{"regex_find", `{"text":"ABC","pattern":"b","ignore_case":true}`, `{"count":1,"truncated":false,"matches":[{"match":"B","line":1,"column":2,"offset":1}]}`, false},
		{"regex_find", `{"text":"x","pattern":"y"}`, `{"count":0,"truncated":false,"matches":[]}`, false},
		{"regex_find", `{"text":"x","pattern":"(x"}`, "invalid regular expression: missing closing ): `(x` (Go RE2 syntax: no backreferences or lookaround)", true},
		{"regex_find", `{"text":"x","pattern":"x","max_matches":0}`, "max_matches must be between 1 and 1000, not 0", true},

		{"replace", `{"text":"foo bar foo","find":"foo","replacement":"baz","max_replacements":1}`, `{"text":"baz bar foo","replacements":1}`, false},
		{"replace", `{"text":"John Smith, Jane Doe","find":"(\\w+) (?P<last>\\w+)","replacement":"${last} $1","regex":true}`, `{"text":"Smith John, Doe Jane","replacements":2}`, false},
		{"replace", `{"text":"Foo fOO x","find":"foo","replacement":"$1<","ignore_case":true}`, `{"text":"$1< $1< x","replacements":2}`, false},
		{"replace", `{"text":"a.b.c","find":".","replacement":""}`, `{"text":"abc","replacements":2}`, false},
		{"replace", `{"text":"abc","find":"","replacement":"x"}`, "find is empty; give the text or pattern to replace", true},

		{"slugify", `{"text":"Héllo, Wörld! Straße — Ærø 2024 don't"}`, "hello-world-strasse-aero-2024-dont", false},
		{"slugify", `{"text":"Cafe\u0301 Привет 東京"}`, "cafe-привет-東京", false},
		{"slugify", `{"text":"Cafe\u0301 Привет","ascii_only":true}`, "cafe", false},
		{"slugify", `{"text":"one two three four","max_length":9,"separator":"_"}`, "one_two", false},
		{"slugify", `{"text":"Supercalifragilistic","max_length":5,"keep_case":true}`, "Super", false},
		{"slugify", `{"text":"!!!"}`, "the text has no letters or digits to make a slug from", true},

		{"diff", `{"a":"one\ntwo\nthree\nfour\n","b":"one\n2\nthree\nfour\nfive"}`,
			"--- a\n+++ b\n@@ -1,4 +1,5 @@\n one\n-two\n+2\n three\n four\n+five\n\\ No newline at end of file\n", false},
		{"diff", `{"a":"x\n","b":"x\n"}`, "no differences", false},
		{"diff", `{"a":"x \r\n","b":"x\n","ignore_trailing_whitespace":true}`, "no differences", false},
		{"diff", `{"a":"","b":"new\n","a_label":"old.txt","b_label":"new.txt"}`, "--- old.txt\n+++ new.txt\n@@ -0,0 +1 @@\n+new\n", false},
		{"diff", `{"a":"1\n2\n3\n4\n5\n6\n7\n8\n9\n","b":"1\nX\n3\n4\n5\n6\n7\nY\n9\n","context_lines":1}`,
			"--- a\n+++ b\n@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n@@ -7,3 +7,3 @@\n 7\n-8\n+Y\n 9\n", false},
		{"diff", `{"a":"1\n2\n3\n4\n5\n","b":"1\nX\n3\nY\n5\n","context_lines":1}`,
			"--- a\n+++ b\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n-4\n+Y\n 5\n", false},

		{"case", `{"text":"HTTPServerError utf8Decode","to":"snake"}`, "http_server_error_utf8_decode", false},
		{"case", `{"text":"my-var name\nsecond_line","to":"camel"}`, "myVarName\nsecondLine", false},
		{"case", `{"text":"my var","to":"pascal"}`, "MyVar", false},
		{"case", `{"text":"my var","to":"kebab"}`, "my-var", false},
		{"case", `{"text":"myVar","to":"constant"}`, "MY_VAR", false},
		{"case", `{"text":"the QUICK brown fox's (big) jump-off","to":"title"}`, "The Quick Brown Fox's (Big) Jump-Off", false},
		{"case", `{"text":"HELLO there. how ARE you? fine","to":"sentence"}`, "Hello there. How are you? Fine", false},
		{"case", `{"text":"straße","to":"upper"}`, "STRASSE", false},
		{"case", `{"text":"x","to":"weird"}`, `unknown case "weird"; use upper, lower, title, sentence, snake, kebab, camel, pascal or constant`, true},
	} {
		inv := mcpwasm.Invoke(tc.tool, tc.args)
		if inv.Err != nil || inv.Text() != tc.want || inv.Result.IsError != tc.isError {
			t.Errorf("%s %s:\ngot  %q (isError %v, err %v)\nwant %q", tc.tool, tc.args, inv.Text(), inv.Result.IsError, inv.Err, tc.want)
		}
	}
}

func TestBounds(t *testing.T) {
	long := strings.Repeat("ab", 600)
	inv := mcpwasm.Invoke("regex_find", `{"text":"`+long+`","pattern":".+"}`)
	var r struct{ Matches []struct{ Match string } }
	if err := json.Unmarshal([]byte(inv.Text()), &r); err != nil || len(r.Matches) != 1 || len([]rune(r.Matches[0].Match)) != 1001 {
		t.Errorf("long match not shortened: %v %.80s", err, inv.Text())
	}
	many := strings.Repeat("x", 2000)
	if inv := mcpwasm.Invoke("regex_find", `{"text":"`+many+`","pattern":"x","max_matches":1000}`); !strings.Contains(inv.Text(), `"count":1000,"truncated":true`) {
		t.Errorf("max_matches: %.80s", inv.Text())
	}
	var a, b strings.Builder
	for i := 0; i < 3000; i++ {
		a.WriteString("a" + string(rune('0'+i%10)) + "\n")
		b.WriteString("b" + string(rune('0'+i%10)) + "\n")
	}
	args, _ := json.Marshal(map[string]string{"a": a.String(), "b": b.String()})
	if inv := mcpwasm.Invoke("diff", string(args)); !inv.Result.IsError || inv.Text() != "the texts differ in more than 2000 lines; diff smaller pieces" {
		t.Errorf("edit bound: %.100s", inv.Text())
	}
	args, _ = json.Marshal(map[string]string{"a": strings.Repeat("x\n", 50001), "b": ""})
	if inv := mcpwasm.Invoke("diff", string(args)); !inv.Result.IsError || !strings.Contains(inv.Text(), "at most 50000 lines each") {
		t.Errorf("line bound: %.100s", inv.Text())
	}
}
