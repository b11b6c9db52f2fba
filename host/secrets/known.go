// Package secrets keeps secrets out of what mcpwasm sends and writes: a
// Redactor replaces the values the server knows to be secret, and Detect
// finds credentials by their format (PEM private keys, AWS access keys,
// GitHub, GitLab and Slack tokens, JWTs).
//
// Both are plain string scans with literal anchors (strings.Index) and a
// hand-written check after each hit, no regular expressions: a call's
// result is scanned on every call, and must cost next to nothing
// (RATIONALE.md, "Secrets in results").
package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
)

// Marker replaces a known secret.
const Marker = "[REDACTED]"

// MinLen is the shortest secret a Redactor replaces: a shorter value
// ("1", "yes") would be found everywhere. New reports the ones it skips.
const MinLen = 6

// anchorLen is how many characters of a form must match as written before
// line breaks are skipped: a form is found from its first anchorLen
// characters (then breaks are skipped going forward) or from its last
// (going backward).
const anchorLen = 6

// Redactor replaces known secret values, in the forms a result may carry
// them: as written, JSON-escaped, base64 (standard and URL alphabets, at
// any byte offset, so inside "Basic …" too), hex, and any of these split
// across lines (line breaks, or \n and \r escapes in JSON text, between
// its characters). A nil or empty Redactor replaces nothing. It is safe
// for concurrent use.
type Redactor struct {
	forms []string
}

// New returns a Redactor for values. Leading and trailing white space is
// ignored, and line breaks inside a value are matched as breaks anywhere.
// Values shorter than MinLen are not redacted; their indexes are returned,
// for the caller to warn about (never print the value).
func New(values []string) (*Redactor, []int) {
	r := &Redactor{}
	seen := map[string]bool{}
	var short []int
	for i, v := range values {
		v = strings.TrimSpace(strings.NewReplacer("\r", "", "\n", "").Replace(v))
		if len(v) < MinLen {
			short = append(short, i)
			continue
		}
		for _, f := range forms(v) {
			if len(f) >= MinLen && !seen[f] {
				seen[f] = true
				r.forms = append(r.forms, f)
			}
		}
	}
	// Longer forms first: one that contains another is replaced whole.
	sort.SliceStable(r.forms, func(i, j int) bool { return len(r.forms[i]) > len(r.forms[j]) })
	return r, short
}

// Empty reports whether r replaces nothing.
func (r *Redactor) Empty() bool { return r == nil || len(r.forms) == 0 }

// forms returns the ways v may be written in a result.
func forms(v string) []string {
	out := []string{v}
	for _, html := range []bool{true, false} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		enc.Encode(v) //nolint:errcheck // a string always encodes
		s := strings.TrimSuffix(b.String(), "\n")
		out = append(out, s[1:len(s)-1])
	}
	out = append(out, strings.ReplaceAll(out[1], "/", `\/`))
	out = append(out, hex.EncodeToString([]byte(v)), strings.ToUpper(hex.EncodeToString([]byte(v))))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for k := 0; k < 3; k++ {
			out = append(out, base64Core(enc, v, k))
		}
	}
	return out
}

// base64Core is the part of the base64 of (k bytes, v, anything) that
// depends on v's bytes alone: the characters from the first whose six
// bits all come from v to the last.
func base64Core(enc *base64.Encoding, v string, k int) string {
	pad := strings.Repeat("\x00", k)
	e := enc.EncodeToString([]byte(pad + v))
	from := (8*k + 5) / 6
	to := (8 * (k + len(v))) / 6
	if to > len(e) {
		to = len(e)
	}
	if from >= to {
		return ""
	}
	return e[from:to]
}

// Redact returns s with every known secret replaced by Marker, and how
// many it replaced. A string with none is returned as is.
func (r *Redactor) Redact(s string) (string, int) {
	if r.Empty() || len(s) < MinLen {
		return s, 0
	}
	// A form split across lines before its sixth character is found from
	// its end; without any line break in s, the forward pass finds all.
	breaks := strings.ContainsAny(s, "\r\n") || strings.Contains(s, `\n`) || strings.Contains(s, `\r`)
	var spans []span
	for _, f := range r.forms {
		spans = find(s, f, spans, breaks)
	}
	if len(spans) == 0 {
		return s, 0
	}
	return replace(s, spans, func(span) string { return Marker })
}

// span is [start, end) of s.
type span struct {
	start, end int
	kind       Kind
}

// find appends the spans where form occurs in s, its characters possibly
// separated by line breaks.
func find(s, form string, spans []span, backward bool) []span {
	a := min(anchorLen, len(form))
	head, tail := form[:a], form[len(form)-a:]
	for i := 0; ; {
		j := strings.Index(s[i:], head)
		if j < 0 {
			break
		}
		j += i
		if end, ok := walkForward(s, j+a, form[a:]); ok {
			spans = append(spans, span{start: j, end: end})
			i = end
			continue
		}
		i = j + 1
	}
	for i := 0; backward; {
		j := strings.Index(s[i:], tail)
		if j < 0 {
			break
		}
		j += i
		if start, ok := walkBackward(s, j, form[:len(form)-a]); ok {
			spans = append(spans, span{start: start, end: j + a})
		}
		i = j + a
	}
	return spans
}

// breakAt returns the length of the line break at s[i] ("\n", "\r", or the
// JSON escapes `\n` and `\r`), or 0.
func breakAt(s string, i int) int {
	switch s[i] {
	case '\n', '\r':
		return 1
	case '\\':
		if i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r') {
			return 2
		}
	}
	return 0
}

func walkForward(s string, i int, rest string) (int, bool) {
	for k := 0; k < len(rest); {
		if i >= len(s) {
			return 0, false
		}
		if s[i] == rest[k] {
			i++
			k++
			continue
		}
		n := breakAt(s, i)
		if n == 0 {
			return 0, false
		}
		i += n
	}
	return i, true
}

func walkBackward(s string, i int, rest string) (int, bool) {
	for k := len(rest) - 1; k >= 0; {
		if i <= 0 {
			return 0, false
		}
		if s[i-1] == rest[k] {
			i--
			k--
			continue
		}
		switch {
		case s[i-1] == '\n' || s[i-1] == '\r':
			i--
		case i >= 2 && s[i-2] == '\\' && (s[i-1] == 'n' || s[i-1] == 'r'):
			i -= 2
		default:
			return 0, false
		}
	}
	return i, true
}

// replace returns s with the spans (overlapping ones merged) replaced by
// what with gives, and how many replacements were made.
func replace(s string, spans []span, with func(span) string) (string, int) {
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var b strings.Builder
	b.Grow(len(s))
	last, n := 0, 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		for i++; i < len(spans) && spans[i].start < cur.end; i++ {
			cur.end = max(cur.end, spans[i].end)
		}
		b.WriteString(s[last:cur.start])
		b.WriteString(with(cur))
		last = cur.end
		n++
	}
	b.WriteString(s[last:])
	return b.String(), n
}
