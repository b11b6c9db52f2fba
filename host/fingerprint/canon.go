// Package fingerprint computes the fingerprint of a declaration (a tool,
// prompt, resource or resource template) as a client sees it: SHA-256 over
// the declaration's canonical JSON (RFC 8785, the JSON Canonicalization
// Scheme).
//
// Every field of the served declaration is covered, not a chosen few:
// name, title, description, input and output schemas, annotations, _meta,
// icons, execution, prompt arguments, URI, mimeType. Whatever a client may
// show a model is in the JSON go-sdk sends, so whatever changes in it
// changes the fingerprint.
package fingerprint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical returns the RFC 8785 canonical form of the JSON text data:
// no whitespace, object members sorted by the UTF-16 code units of their
// names, strings with the minimal escapes, numbers as ECMAScript prints a
// double. Duplicate member names are an error (RFC 8785 §3.1 requires
// I-JSON), as is text that is not one JSON value.
func Canonical(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var buf bytes.Buffer
	if err := canonValue(dec, &buf); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("fingerprint: more than one JSON value")
	}
	return buf.Bytes(), nil
}

func canonValue(dec *json.Decoder, buf *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("fingerprint: %w", err)
	}
	return canonToken(dec, tok, buf)
}

func canonToken(dec *json.Decoder, tok json.Token, buf *bytes.Buffer) error {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			buf.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					buf.WriteByte(',')
				}
				if err := canonValue(dec, buf); err != nil {
					return err
				}
			}
			dec.Token() //nolint:errcheck // the closing ']' the decoder checked
			buf.WriteByte(']')
		case '{':
			type member struct {
				key  string
				val  []byte
				sort []uint16
			}
			var ms []member
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return fmt.Errorf("fingerprint: %w", err)
				}
				k := kt.(string)
				if seen[k] {
					return fmt.Errorf("fingerprint: member %q appears twice", k)
				}
				seen[k] = true
				var vb bytes.Buffer
				if err := canonValue(dec, &vb); err != nil {
					return err
				}
				ms = append(ms, member{key: k, val: vb.Bytes(), sort: utf16.Encode([]rune(k))})
			}
			dec.Token() //nolint:errcheck // the closing '}'
			sort.Slice(ms, func(i, j int) bool { return lessUTF16(ms[i].sort, ms[j].sort) })
			buf.WriteByte('{')
			for i, m := range ms {
				if i > 0 {
					buf.WriteByte(',')
				}
				writeString(buf, m.key)
				buf.WriteByte(':')
				buf.Write(m.val)
			}
			buf.WriteByte('}')
		}
	case string:
		writeString(buf, t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("fingerprint: number %s is not an IEEE 754 double", t)
		}
		buf.WriteString(FormatNumber(f))
	case bool:
		if t {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case nil:
		buf.WriteString("null")
	}
	return nil
}

func lessUTF16(a, b []uint16) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// writeString writes s as RFC 8785 §3.2.2.2 says: '"' and '\' escaped,
// the controls below U+0020 as \b \t \n \f \r or \u00xx (lower-case hex),
// everything else as is. Invalid UTF-8 was already replaced by U+FFFD when
// the decoder read the text.
func writeString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			buf.WriteRune(r)
			i += n
			continue
		}
		switch {
		case c == '"':
			buf.WriteString(`\"`)
		case c == '\\':
			buf.WriteString(`\\`)
		case c == '\b':
			buf.WriteString(`\b`)
		case c == '\t':
			buf.WriteString(`\t`)
		case c == '\n':
			buf.WriteString(`\n`)
		case c == '\f':
			buf.WriteString(`\f`)
		case c == '\r':
			buf.WriteString(`\r`)
		case c < 0x20:
			buf.WriteString(`\u00`)
			buf.WriteByte(hex[c>>4])
			buf.WriteByte(hex[c&0xf])
		default:
			buf.WriteByte(c)
		}
		i++
	}
	buf.WriteByte('"')
}

// FormatNumber prints f as ECMAScript's Number.prototype.toString does
// (ECMA-262 §6.1.6.1.20), which RFC 8785 §3.2.2.3 requires: the shortest
// digits that read back as f, in plain notation for exponents from -7 to
// 20, else as d.ddde±x; -0 prints as 0.
func FormatNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	neg := f < 0
	if neg {
		f = -f
	}
	// The shortest round-trip digits and the decimal exponent.
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±xx
	mant, exps, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(exps)
	k := len(digits)
	n := exp + 1 // the decimal point sits after n digits
	var s string
	switch {
	case k <= n && n <= 21:
		s = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		s = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		s = "0." + strings.Repeat("0", -n) + digits
	default:
		sign := "+"
		if n-1 < 0 {
			sign = "-"
		}
		x := n - 1
		if x < 0 {
			x = -x
		}
		if k == 1 {
			s = digits + "e" + sign + strconv.Itoa(x)
		} else {
			s = digits[:1] + "." + digits[1:] + "e" + sign + strconv.Itoa(x)
		}
	}
	if neg {
		s = "-" + s
	}
	return s
}
