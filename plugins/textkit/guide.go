package main

import (
	"errors"
	"strings"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/prompts"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/resources"
)

// regexSyntaxURI is the resource holding the regular expression syntax that
// regex_find and replace accept.
const regexSyntaxURI = "textkit://regex-syntax"

// regexSyntax is a short reference to Go's RE2 syntax, as regex_find and
// replace use it.
const regexSyntax = `# Regular expressions in textkit (Go RE2)

regex_find and replace use Go's RE2 syntax (https://golang.org/s/re2syntax).
Matching takes time linear in the text, whatever the pattern.

| pattern | matches |
|---|---|
| ` + "`.`" + ` | any character except a newline (any at all with dot_all) |
| ` + "`[abc]` `[^abc]` `[a-z]`" + ` | one of, none of, a range |
| ` + "`\\d \\w \\s`" + ` (and ` + "`\\D \\W \\S`" + `) | ASCII digit, word character, space (and their complements) |
| ` + "`\\pL` `\\p{Greek}`" + ` | a Unicode letter, a character of a script |
| ` + "`x* x+ x? x{2,5}`" + ` | repetition (add ` + "`?`" + ` for the shortest match) |
| ` + "`^ $`" + ` | start and end of the text (of each line with multiline) |
| ` + "`\\b`" + ` | a word boundary |
| ` + "`(x)` `(?P<name>x)` `(?:x)`" + ` | a group, a named group, a group that captures nothing |
| ` + "`a|b`" + ` | either |
| ` + "`(?i)`" + ` | case-insensitive from here (or set ignore_case) |

Not supported: backreferences (` + "`\\1`" + `) and lookaround (` + "`(?=x)` `(?!x)` `(?<=x)`" + `).
In replace, ` + "`$1`" + ` and ` + "`${name}`" + ` insert a group and ` + "`$$`" + ` a literal dollar sign.
`

// reviewMaxLines bounds each text the review_changes prompt compares, as
// the diff tool does.
const reviewMaxLines = maxDiffLines

func init() {
	resources.Resource(regexSyntaxURI, "regex-syntax", func(*resources.Request) (*resources.Result, error) {
		return resources.Text(regexSyntax), nil
	}).Title("Regular expression syntax").
		Description("The regular expression syntax regex_find and replace accept (Go RE2), in brief.").
		MimeType("text/markdown")

	prompts.Prompt("review_changes", "Ask the model to review what changed between two versions of a text; the prompt carries their unified diff.",
		reviewChanges).Title("Review changes between two texts").
		RequiredArgument("before", "The original text.").
		RequiredArgument("after", "The changed text.").
		Argument("focus", "What to pay attention to, e.g. \"meaning\", \"tone\" or \"bugs\" (optional).")
}

// reviewChanges builds the review_changes prompt: the diff of before and
// after, computed here as the diff tool does, and the request to review it.
func reviewChanges(r *prompts.Request) (*prompts.Result, error) {
	before, after := r.Arguments["before"], r.Arguments["after"]
	bl, al := splitLines(before), splitLines(after)
	if len(bl) > reviewMaxLines || len(al) > reviewMaxLines {
		return nil, errors.New("the texts are too long to compare: at most 50000 lines each")
	}
	ops, ok := diffLines(bl, al, false)
	if !ok {
		return nil, errors.New("the texts differ in more than 2000 lines: review smaller pieces")
	}
	d := unified(ops, bl, al, "before", "after", 3)
	var sb strings.Builder
	if d == "" {
		sb.WriteString("The two versions of the text are identical. Say so, and point out anything worth improving in it:\n\n")
		sb.WriteString(before)
	} else {
		sb.WriteString("Review the changes in this unified diff between two versions of a text. Summarise what changed, then point out anything that looks wrong, inconsistent or unintended.")
		if f := strings.TrimSpace(r.Arguments["focus"]); f != "" {
			sb.WriteString(" Pay particular attention to: " + f + ".")
		}
		sb.WriteString("\n\n```diff\n" + d + "```\n")
	}
	return prompts.Reply("Review of the changes between two texts", prompts.UserText(sb.String())), nil
}
