package main

import (
	"strings"
	"unicode"
	"unicode/utf8"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

// fold spells Latin letters with diacritics, and ligatures, in ASCII. Letters
// missing here are kept as they are (or dropped with ascii_only).
var fold = map[rune]string{}

func init() {
	for _, group := range []string{
		"aàáâãäåāăąǎȁȃạả", "AÀÁÂÃÄÅĀĂĄǍẠẢ", "cçćĉċč", "CÇĆĈĊČ", "dďđð", "DĎĐÐ",
		"eèéêëēĕėęěẹẻẽ", "EÈÉÊËĒĔĖĘĚẸẺẼ", "gĝğġģ", "GĜĞĠĢ", "hĥħ", "HĤĦ",
		"iìíîïĩīĭįıǐịỉ", "IÌÍÎÏĨĪĬĮİǏỊỈ", "jĵ", "JĴ", "kķ", "KĶ", "lĺļľŀł", "LĹĻĽĿŁ",
		"nñńņňŉ", "NÑŃŅŇ", "oòóôõöøōŏőǒọỏơ", "OÒÓÔÕÖØŌŎŐǑỌỎƠ", "rŕŗř", "RŔŖŘ",
		"sśŝşšș", "SŚŜŞŠȘ", "tţťŧț", "TŢŤŦȚ", "uùúûüũūŭůűųǔụủư", "UÙÚÛÜŨŪŬŮŰŲǓỤỦƯ",
		"wŵ", "WŴ", "yýÿŷỳỹ", "YÝŸŶỲỸ", "zźżž", "ZŹŻŽ",
	} {
		ascii, _ := utf8.DecodeRuneInString(group)
		for _, r := range group[1:] {
			fold[r] = string(ascii)
		}
	}
	for r, s := range map[rune]string{'ß': "ss", 'ẞ': "SS", 'æ': "ae", 'Æ': "AE", 'œ': "oe", 'Œ': "OE",
		'þ': "th", 'Þ': "TH", 'ĳ': "ij", 'Ĳ': "IJ", 'ﬁ': "fi", 'ﬂ': "fl"} {
		fold[r] = s
	}
}

func slugifyTool(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	a := struct {
		Text      string `json:"text"`
		Separator string `json:"separator"`
		MaxLength int    `json:"max_length"`
		ASCIIOnly bool   `json:"ascii_only"`
		KeepCase  bool   `json:"keep_case"`
	}{Separator: "-"}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	if a.MaxLength < 0 {
		return nil, errorf("max_length must be 0 (no limit) or more, not %d", a.MaxLength)
	}
	s := slugify(a.Text, a.Separator, a.MaxLength, a.ASCIIOnly, a.KeepCase)
	if s == "" {
		return nil, errorf("the text has no letters or digits to make a slug from")
	}
	return mcpwasm.Text(s), nil
}

func slugify(text, sep string, maxLen int, asciiOnly, keepCase bool) string {
	var words []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			words = append(words, w.String())
			w.Reset()
		}
	}
	lastASCII := false // the last letter kept was ASCII (its accents are dropped)
	for _, r := range text {
		if s, ok := fold[r]; ok {
			w.WriteString(s)
			lastASCII = true
			continue
		}
		switch {
		case r == '\'' || r == '’': // "don't" -> "dont"
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			w.WriteRune(r)
			lastASCII = true
		case unicode.Is(unicode.M, r): // a combining mark belongs to the letter before it
			if !asciiOnly && !lastASCII && w.Len() > 0 {
				w.WriteRune(r)
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !asciiOnly {
				w.WriteRune(r)
				lastASCII = false
			}
		default:
			flush()
		}
	}
	flush()
	var out strings.Builder
	n := 0
	sepLen := utf8.RuneCountInString(sep)
	for _, word := range words {
		if !keepCase {
			word = strings.ToLower(word)
		}
		wl := utf8.RuneCountInString(word)
		add := wl
		if out.Len() > 0 {
			add += sepLen
		}
		if maxLen > 0 && n+add > maxLen {
			if out.Len() == 0 { // one long word: cut it
				out.WriteString(string([]rune(word)[:maxLen]))
			}
			break
		}
		if out.Len() > 0 {
			out.WriteString(sep)
		}
		out.WriteString(word)
		n += add
	}
	return out.String()
}

func caseTool(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	var a struct {
		Text string `json:"text"`
		To   string `json:"to"`
	}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	switch a.To {
	case "upper":
		// ß has no one-letter capital in Go's simple case mapping; SS is
		// Unicode's full mapping.
		return mcpwasm.Text(strings.ReplaceAll(strings.ToUpper(a.Text), "ß", "SS")), nil
	case "lower":
		return mcpwasm.Text(strings.ToLower(a.Text)), nil
	case "title":
		return mcpwasm.Text(titleCase(a.Text)), nil
	case "sentence":
		return mcpwasm.Text(sentenceCase(a.Text)), nil
	case "snake", "kebab", "camel", "pascal", "constant":
		lines := strings.Split(a.Text, "\n")
		for i, l := range lines {
			lines[i] = joinWords(splitWords(l), a.To)
		}
		return mcpwasm.Text(strings.Join(lines, "\n")), nil
	}
	return nil, errorf("unknown case %q; use upper, lower, title, sentence, snake, kebab, camel, pascal or constant", a.To)
}

// titleCase upper-cases each letter that starts a word and lower-cases the
// others. A word starts after anything but a letter, digit or apostrophe.
func titleCase(s string) string {
	var b strings.Builder
	prev := ' '
	for _, r := range s {
		if unicode.IsLetter(prev) || unicode.IsDigit(prev) || prev == '\'' || prev == '’' {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToTitle(r))
		}
		prev = r
	}
	return b.String()
}

// sentenceCase lower-cases s and capitalises the first letter of the text
// and of each sentence (after ., ! or ? and whitespace).
func sentenceCase(s string) string {
	var b strings.Builder
	start, sawEnd := true, false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			if start {
				b.WriteRune(unicode.ToTitle(r))
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
			start, sawEnd = false, false
			continue
		case r == '.' || r == '!' || r == '?':
			sawEnd = true
		case unicode.IsSpace(r):
			if sawEnd {
				start = true
			}
		case unicode.IsDigit(r):
			start, sawEnd = false, false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// splitWords splits an identifier or phrase into words at anything that is
// not a letter or digit and at camelCase humps; "HTTPServer2Go" gives HTTP,
// Server2, Go. Apostrophes are dropped ("don't" is one word).
func splitWords(s string) []string {
	rs := []rune(s)
	var words []string
	var w []rune
	end := func() {
		if len(w) > 0 {
			words = append(words, string(w))
			w = w[:0]
		}
	}
	for i, r := range rs {
		if r == '\'' || r == '’' {
			continue
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			end()
			continue
		}
		if unicode.IsUpper(r) && len(w) > 0 {
			prev := w[len(w)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				end()
			}
		}
		w = append(w, r)
	}
	end()
	return words
}

func joinWords(words []string, style string) string {
	for i, w := range words {
		switch style {
		case "constant":
			words[i] = strings.ToUpper(w)
		case "camel", "pascal":
			w = strings.ToLower(w)
			if i > 0 || style == "pascal" {
				r, n := utf8.DecodeRuneInString(w)
				w = string(unicode.ToTitle(r)) + w[n:]
			}
			words[i] = w
		default:
			words[i] = strings.ToLower(w)
		}
	}
	switch style {
	case "kebab":
		return strings.Join(words, "-")
	case "camel", "pascal":
		return strings.Join(words, "")
	}
	return strings.Join(words, "_")
}
