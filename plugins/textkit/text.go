package main

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

type counts struct {
	Characters    int `json:"characters"`
	Bytes         int `json:"bytes"`
	Words         int `json:"words"`
	Lines         int `json:"lines"`
	NonBlankLines int `json:"non_blank_lines"`
	LongestLine   int `json:"longest_line"`
}

// count measures text. A line is a run ending in "\n", or the non-empty
// rest after the last one: "a\nb" and "a\nb\n" both have 2 lines.
func count(text string) counts {
	c := counts{Bytes: len(text)}
	inWord, lineLen, blank := false, 0, true
	endLine := func() {
		c.Lines++
		if !blank {
			c.NonBlankLines++
		}
		if lineLen > c.LongestLine {
			c.LongestLine = lineLen
		}
		lineLen, blank = 0, true
	}
	for _, r := range text {
		c.Characters++
		space := unicode.IsSpace(r)
		if !space && !inWord {
			c.Words++
		}
		inWord = !space
		if r == '\n' {
			endLine()
			continue
		}
		if r != '\r' {
			lineLen++
		}
		if !space {
			blank = false
		}
	}
	if len(text) > 0 && !strings.HasSuffix(text, "\n") {
		endLine()
	}
	return c
}

// compile builds the regexp for a pattern and its flags, with an error
// message the model can act on.
func compile(pattern string, ignoreCase, multiline, dotAll bool) (*regexp.Regexp, error) {
	flags := ""
	if ignoreCase {
		flags += "i"
	}
	if multiline {
		flags += "m"
	}
	if dotAll {
		flags += "s"
	}
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, errorf("invalid regular expression: %s (Go RE2 syntax: no backreferences or lookaround)", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

type match struct {
	Match  string            `json:"match"`
	Line   int               `json:"line"`
	Column int               `json:"column"`
	Offset int               `json:"offset"`
	Groups []*string         `json:"groups,omitempty"`
	Named  map[string]string `json:"named,omitempty"`
}

func regexFind(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	a := struct {
		Text       string `json:"text"`
		Pattern    string `json:"pattern"`
		IgnoreCase bool   `json:"ignore_case"`
		Multiline  bool   `json:"multiline"`
		DotAll     bool   `json:"dot_all"`
		MaxMatches int    `json:"max_matches"`
	}{MaxMatches: 100}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	if a.MaxMatches < 1 || a.MaxMatches > 1000 {
		return nil, errorf("max_matches must be between 1 and 1000, not %d", a.MaxMatches)
	}
	re, err := compile(a.Pattern, a.IgnoreCase, a.Multiline, a.DotAll)
	if err != nil {
		return nil, err
	}
	found := re.FindAllStringSubmatchIndex(a.Text, a.MaxMatches+1)
	truncated := len(found) > a.MaxMatches
	if truncated {
		found = found[:a.MaxMatches]
	}
	names := re.SubexpNames()
	matches := make([]match, 0, len(found))
	pos := position{line: 1, column: 1}
	for _, m := range found {
		pos.advance(a.Text, m[0])
		mt := match{Match: shorten(a.Text[m[0]:m[1]]), Line: pos.line, Column: pos.column, Offset: pos.offset}
		for g := 1; g < len(names); g++ {
			if m[2*g] < 0 {
				mt.Groups = append(mt.Groups, nil)
				continue
			}
			s := shorten(a.Text[m[2*g]:m[2*g+1]])
			mt.Groups = append(mt.Groups, &s)
			if names[g] != "" {
				if mt.Named == nil {
					mt.Named = map[string]string{}
				}
				mt.Named[names[g]] = s
			}
		}
		matches = append(matches, mt)
	}
	return mcpwasm.JSON(struct {
		Count     int     `json:"count"`
		Truncated bool    `json:"truncated"`
		Matches   []match `json:"matches"`
	}{len(matches), truncated, matches}), nil
}

// position tracks the 1-based line and column and the 0-based character
// offset of a byte index, moving forward only.
type position struct {
	byteIdx, offset, line, column int
}

func (p *position) advance(text string, to int) {
	for p.byteIdx < to {
		r, n := utf8.DecodeRuneInString(text[p.byteIdx:])
		p.byteIdx += n
		p.offset++
		p.column++
		if r == '\n' {
			p.line++
			p.column = 1
		}
	}
}

// shorten cuts s to 1000 characters, marking the cut with "…".
func shorten(s string) string {
	const max = 1000
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func replace(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	var a struct {
		Text            string `json:"text"`
		Find            string `json:"find"`
		Replacement     string `json:"replacement"`
		Regex           bool   `json:"regex"`
		IgnoreCase      bool   `json:"ignore_case"`
		MaxReplacements int    `json:"max_replacements"`
	}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	if a.Find == "" {
		return nil, errEmptyFind
	}
	if a.MaxReplacements < 0 {
		return nil, errorf("max_replacements must be 0 (all) or more, not %d", a.MaxReplacements)
	}
	limit := a.MaxReplacements
	if limit == 0 {
		limit = -1
	}
	out, n := "", 0
	switch {
	case !a.Regex && !a.IgnoreCase:
		n = strings.Count(a.Text, a.Find)
		if limit > 0 && n > limit {
			n = limit
		}
		out = strings.Replace(a.Text, a.Find, a.Replacement, n)
	default:
		pattern := a.Find
		if !a.Regex {
			pattern = regexp.QuoteMeta(pattern)
		}
		re, err := compile(pattern, a.IgnoreCase, false, false)
		if err != nil {
			return nil, err
		}
		found := re.FindAllStringSubmatchIndex(a.Text, limit)
		var b []byte
		last := 0
		for _, m := range found {
			b = append(b, a.Text[last:m[0]]...)
			if a.Regex {
				b = re.ExpandString(b, a.Replacement, a.Text, m)
			} else {
				b = append(b, a.Replacement...)
			}
			last = m[1]
		}
		out, n = string(append(b, a.Text[last:]...)), len(found)
	}
	return mcpwasm.JSON(struct {
		Text         string `json:"text"`
		Replacements int    `json:"replacements"`
	}{out, n}), nil
}
