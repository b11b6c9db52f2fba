// Package hiddentext finds characters a person does not see but a model
// reads: Unicode tag characters, bidirectional controls, format characters
// (Cf: zero-width spaces and joiners among them), C0 and C1 controls other
// than newline and tab, and a few invisible letters and variation
// selectors used to smuggle text. It also gives the Unicode TR39 skeleton
// of a name, to find names that look alike.
package hiddentext

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Class is why a character is hidden.
type Class string

// The classes of hidden characters.
const (
	// Tag is a Unicode tag character (U+E0000–U+E007F): invisible, and
	// read by models as the ASCII it shadows.
	Tag Class = "tag"
	// Bidi is a bidirectional control (U+202A–U+202E, U+2066–U+2069,
	// U+200E, U+200F, U+061C): reorders what a person sees.
	Bidi Class = "bidi"
	// Format is any other format character (general category Cf): the
	// zero-width space, joiners, U+FEFF, the soft hyphen.
	Format Class = "format"
	// Control is a C0 or C1 control (or DEL) other than newline and tab.
	Control Class = "control"
	// Invisible is a letter or selector that renders as nothing: the
	// Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) and the variation
	// selectors supplement (U+E0100–U+E01EF).
	Invisible Class = "invisible"
)

// Classify returns the class of r, or "" for a visible character
// (newline and tab included).
func Classify(r rune) Class {
	switch {
	case r < 0x20:
		if r == '\n' || r == '\t' {
			return ""
		}
		return Control
	case r < 0x7f:
		return ""
	case r <= 0x9f:
		return Control
	case r < 0x61c:
		if r == 0xad {
			return Format
		}
		return ""
	case r >= 0xe0000 && r <= 0xe007f:
		return Tag
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x61c:
		return Bidi
	case r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0, r >= 0xe0100 && r <= 0xe01ef:
		return Invisible
	case unicode.Is(unicode.Cf, r):
		return Format
	}
	return ""
}

// Finding is one hidden character.
type Finding struct {
	// Field is where it is: a JSON path into the declaration
	// ("description", "inputSchema.properties.q.description"), "" for a
	// lone string.
	Field string
	// Rune is the character.
	Rune rune
	// Pos is its position in the string, counted in characters from 0.
	Pos int
	// Class is why it is hidden.
	Class Class
}

// String reads as "description: U+E0041 (tag) at 12".
func (f Finding) String() string {
	s := fmt.Sprintf("U+%04X (%s) at %d", f.Rune, f.Class, f.Pos)
	if f.Field != "" {
		s = f.Field + ": " + s
	}
	return s
}

// maxFindings bounds the findings reported for one string: a description
// made of tag characters is reported by its first few.
const maxFindings = 16

// Check returns the hidden characters in s (at most 16).
func Check(s string) []Finding {
	var out []Finding
	pos := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			pos++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if cl := Classify(r); cl != "" {
			out = append(out, Finding{Rune: r, Pos: pos, Class: cl})
			if len(out) == maxFindings {
				return out
			}
		}
		i += n
		pos++
	}
	return out
}

// Has reports whether s holds any hidden character.
func Has(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if Classify(r) != "" {
			return true
		}
		i += n
	}
	return false
}

// Strip removes the hidden characters from s and says how many it
// removed. A string without any is returned as is, unallocated.
func Strip(s string) (string, int) {
	if !Has(s) {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s))
	n := 0
	for _, r := range s {
		if Classify(r) != "" {
			n++
			continue
		}
		b.WriteRune(r)
	}
	return b.String(), n
}

// CheckJSON returns the hidden characters in every string of the JSON
// text raw, member names included, each with its path. raw that is not
// JSON is checked as a string.
func CheckJSON(raw []byte) []Finding {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return Check(string(raw))
	}
	var out []Finding
	walk(v, "", &out)
	return out
}

func walk(v any, path string, out *[]Finding) {
	if len(*out) >= maxFindings {
		return
	}
	add := func(s, field string) {
		for _, f := range Check(s) {
			f.Field = field
			*out = append(*out, f)
		}
	}
	switch x := v.(type) {
	case string:
		add(x, path)
	case []any:
		for i, e := range x {
			walk(e, fmt.Sprintf("%s[%d]", path, i), out)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			add(k, p+" (name)")
			walk(x[k], p, out)
		}
	}
}
