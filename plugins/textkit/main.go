// Command textkit is an mcpwasm plugin with text utilities for models:
// count, regex_find, replace, slugify, diff and case. Build it with build.sh.
package main

import (
	"embed"
	"errors"
	"fmt"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/skills"
)

// skillFS holds textkit's skills (skills/<name>/SKILL.md and the files
// beside it), served as skill://<name>/... resources (ABI.md §5a).
//
//go:embed skills
var skillFS embed.FS

// pure marks tools whose answer depends only on their arguments.
const pure = `{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`

func init() {
	skills.Dir(skillFS, "skills")

	mcpwasm.Tool("count", "Count the characters (Unicode code points), bytes (UTF-8), words (runs of non-whitespace), lines and non-blank lines of a text, and the length of its longest line in characters.",
		`{"type":"object","properties":{
			"text":{"type":"string","description":"The text to measure."}},
		"required":["text"],"additionalProperties":false}`,
		func(c *mcpwasm.Call) (*mcpwasm.Result, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := c.Bind(&a); err != nil {
				return nil, err
			}
			return mcpwasm.JSON(count(a.Text)), nil
		}).Title("Count characters, words and lines").Annotations(pure).OutputSchema(`{"type":"object","properties":{
			"characters":{"type":"integer"},"bytes":{"type":"integer"},"words":{"type":"integer"},
			"lines":{"type":"integer"},"non_blank_lines":{"type":"integer"},"longest_line":{"type":"integer"}},
		"required":["characters","bytes","words","lines","non_blank_lines","longest_line"]}`)

	mcpwasm.Tool("regex_find", "Find the matches of a regular expression in a text. The syntax is Go's RE2 (https://golang.org/s/re2syntax): no backreferences or lookaround, and matching takes linear time. Each match reports its text, 1-based line and column and 0-based character offset, and its capture groups (null for a group that did not take part). Match and group texts longer than 1000 characters are shortened with '…'.",
		`{"type":"object","properties":{
			"text":{"type":"string","description":"The text to search."},
			"pattern":{"type":"string","description":"The regular expression, e.g. \"(\\\\d{4})-(\\\\d{2})-(\\\\d{2})\" or \"(?P<key>\\\\w+)=(?P<value>\\\\S+)\"."},
			"ignore_case":{"type":"boolean","default":false,"description":"Match letters case-insensitively."},
			"multiline":{"type":"boolean","default":false,"description":"Make ^ and $ match at the start and end of each line, not only of the text."},
			"dot_all":{"type":"boolean","default":false,"description":"Let . match newlines too."},
			"max_matches":{"type":"integer","minimum":1,"maximum":1000,"default":100,"description":"Report at most this many matches; truncated tells whether there were more."}},
		"required":["text","pattern"],"additionalProperties":false}`,
		regexFind).Title("Find regular expression matches").Annotations(pure)

	mcpwasm.Tool("replace", "Replace occurrences of a string or regular expression in a text and return the new text with the number of replacements. With regex, the replacement may refer to groups as $1 or ${name} (write $$ for a literal $); otherwise it is inserted literally.",
		`{"type":"object","properties":{
			"text":{"type":"string","description":"The text to edit."},
			"find":{"type":"string","minLength":1,"description":"The string to look for, or a Go RE2 regular expression if regex is true."},
			"replacement":{"type":"string","description":"What to put in place of each occurrence (may be empty, to delete)."},
			"regex":{"type":"boolean","default":false,"description":"Treat find as a regular expression."},
			"ignore_case":{"type":"boolean","default":false,"description":"Match letters case-insensitively."},
			"max_replacements":{"type":"integer","minimum":0,"default":0,"description":"Replace at most this many occurrences, from the start; 0 replaces all."}},
		"required":["text","find","replacement"],"additionalProperties":false}`,
		replace).Title("Find and replace").Annotations(pure).OutputSchema(`{"type":"object","properties":{
			"text":{"type":"string"},"replacements":{"type":"integer"}},"required":["text","replacements"]}`)

	mcpwasm.Tool("slugify", "Turn a text into a URL- and file-name-safe slug: Latin letters lose their accents (é→e, ß→ss, Æ→ae), other letters and digits are kept, everything else becomes a single separator, and the slug is lower-cased unless told otherwise. Example: \"Héllo, Wörld! 2024\" → \"hello-world-2024\".",
		`{"type":"object","properties":{
			"text":{"type":"string","description":"The text to slugify."},
			"separator":{"type":"string","maxLength":3,"default":"-","description":"What to put between words, e.g. \"-\", \"_\" or \".\"."},
			"max_length":{"type":"integer","minimum":0,"default":0,"description":"Cut the slug to at most this many characters, at a word boundary when there is one; 0 means no limit."},
			"ascii_only":{"type":"boolean","default":false,"description":"Drop letters that have no ASCII form (e.g. Cyrillic, CJK) instead of keeping them."},
			"keep_case":{"type":"boolean","default":false,"description":"Keep upper-case letters instead of lower-casing."}},
		"required":["text"],"additionalProperties":false}`,
		slugifyTool).Title("Slugify").Annotations(pure)

	mcpwasm.Tool("diff", "Compare two texts line by line and return a unified diff (as diff -u prints it) from a to b, or \"no differences\". Lines are compared exactly, including line endings, unless ignore_trailing_whitespace is set. At most 50000 lines per text and 2000 changed lines are supported.",
		`{"type":"object","properties":{
			"a":{"type":"string","description":"The original text."},
			"b":{"type":"string","description":"The changed text."},
			"context_lines":{"type":"integer","minimum":0,"maximum":100,"default":3,"description":"Unchanged lines to show around each change."},
			"a_label":{"type":"string","default":"a","description":"Name for the original in the --- header."},
			"b_label":{"type":"string","default":"b","description":"Name for the changed text in the +++ header."},
			"ignore_trailing_whitespace":{"type":"boolean","default":false,"description":"Treat lines that differ only in trailing spaces, tabs or CR as equal."}},
		"required":["a","b"],"additionalProperties":false}`,
		diffTool).Title("Unified diff").Annotations(pure)

	mcpwasm.Tool("case", "Convert the case of a text. upper, lower, title (first letter of each word capitalised, the rest lower-cased) and sentence work on any text. snake (my_var), kebab (my-var), camel (myVar), pascal (MyVar) and constant (MY_VAR) split each line into words at spaces, punctuation and camelCase humps (\"HTTPServerError\" → http, server, error) and join them; lines are converted separately.",
		`{"type":"object","properties":{
			"text":{"type":"string","description":"The text to convert."},
			"to":{"type":"string","enum":["upper","lower","title","sentence","snake","kebab","camel","pascal","constant"],"description":"The case to convert to."}},
		"required":["text","to"],"additionalProperties":false}`,
		caseTool).Title("Change case").Annotations(pure)
}

func main() {}

var errorf = fmt.Errorf

var errEmptyFind = errors.New("find is empty; give the text or pattern to replace")
