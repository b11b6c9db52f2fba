package mcpwasm

import (
	"encoding/json"
	"unicode/utf8"
)

// The call path's JSON without reflection on struct types.
//
// Every call runs in a fresh instance (ABI.md §1), so encoding/json builds
// its per-type caches (the struct fields, their tags, their encoders) again
// in every call. Under TinyGo that first use costs about 90 µs of a call
// whose own work is 20 µs (RATIONALE.md, "First calls"). decodeEnvelope and
// encodeResultFast do the common cases without struct reflection and give
// exactly what encoding/json gives; anything else takes encoding/json as
// before. FuzzDecodeEnvelope and FuzzEncodeResult hold them to it.

// decodeEnvelope decodes a call_tool input as json.Unmarshal into an
// envelope does, with the same error (the fallback gives it).
func decodeEnvelope(input []byte) (envelope, error) {
	if env, ok := decodeEnvelopeFast(input); ok {
		return env, nil
	}
	var env envelope
	err := json.Unmarshal(input, &env)
	return env, err
}

// decodeEnvelopeFast decodes input through maps of raw values, which need
// no struct reflection and copy nothing (the arguments alias input, which
// the call keeps), when the result is provably json.Unmarshal's:
// every key of the envelope, its request and its context either exactly
// one of the fields' names or (ASCII only) no case-insensitive match of
// any, since encoding/json matches names case-insensitively; no key twice
// (a map keeps the last, encoding/json merges objects into a field); every
// value of the type its field wants. Otherwise ok is false.
func decodeEnvelopeFast(input []byte) (env envelope, ok bool) {
	top, ok := rawObject(input, "request", "context")
	if !ok {
		return env, false
	}
	if raw, in := top["request"]; in && !isNull(raw) {
		req, ok := rawObject(raw, "name", "arguments", "_meta")
		if !ok {
			return env, false
		}
		if !rawString(req["name"], &env.Request.Name) || !rawMap(req["_meta"], &env.Request.Meta) {
			return env, false
		}
		if a, in := req["arguments"]; in {
			env.Request.Arguments = json.RawMessage(a)
		}
	}
	if raw, in := top["context"]; in && !isNull(raw) {
		c, ok := rawObject(raw, "id", "_meta", "plugin", "tool", "deadline_ms", "mounts")
		if !ok {
			return env, false
		}
		if m, in := c["mounts"]; in && !isNull(m) {
			return env, false // the rare case: encoding/json decodes []Mount
		}
		if id, in := c["id"]; in {
			env.Context.ID = json.RawMessage(id)
		}
		if !rawMap(c["_meta"], &env.Context.Meta) || !rawString(c["plugin"], &env.Context.Plugin) ||
			!rawString(c["tool"], &env.Context.Tool) {
			return env, false
		}
		if d, in := c["deadline_ms"]; in && json.Unmarshal(d, &env.Context.DeadlineMs) != nil {
			return env, false
		}
	}
	return env, true
}

// rawObject decodes data, a JSON object, into its members' raw values,
// when every key is one of fields or matches none of them under
// encoding/json's case-insensitive rule, and no key appears twice.
func rawObject(data []byte, fields ...string) (map[string]rawRef, bool) {
	var m map[string]rawRef
	if json.Unmarshal(data, &m) != nil || m == nil {
		return nil, false
	}
	keys := 0
	for k := range m {
		keys++
		for i := 0; i < len(k); i++ {
			if k[i] >= utf8.RuneSelf {
				return nil, false // encoding/json folds some non-ASCII letters onto ASCII (K, ſ)
			}
		}
		for _, f := range fields {
			if k != f && asciiEqualFold(k, f) {
				return nil, false
			}
		}
	}
	return m, countMembers(data) == keys
}

// countMembers counts the members of data, a valid JSON object: the
// keys at its top level, repeats included.
func countMembers(data []byte) int {
	n, depth, inString := 0, 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			if depth == 1 && isKeyStart(data, i) {
				n++
			}
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return n
}

// isKeyStart reports whether the string opening at data[i] is a key of the
// object it is in: the last non-space byte before it is '{' or ','.
func isKeyStart(data []byte, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch data[j] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', ',':
			return true
		}
		return false
	}
	return false
}

// asciiEqualFold is strings.EqualFold for ASCII strings.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// rawRef is a JSON value's text in the input it was decoded from: what
// json.RawMessage holds, without its copy (a 2.6 MB argument would be
// copied once per level, and TinyGo's heap only grows).
type rawRef []byte

// UnmarshalJSON keeps b, a slice of the input being decoded.
func (r *rawRef) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

func isNull(raw rawRef) bool { return string(raw) == "null" }

// rawString decodes raw (absent: nothing) into *s as a string field is
// decoded: null leaves it as it is; anything but a string is refused.
func rawString(raw rawRef, s *string) bool {
	if raw == nil {
		return true
	}
	return json.Unmarshal(raw, s) == nil
}

// rawMap decodes raw (absent: nothing) into *m as a map[string]any field
// is decoded.
func rawMap(raw rawRef, m *map[string]any) bool {
	if raw == nil {
		return true
	}
	return json.Unmarshal(raw, m) == nil
}

// encodeResultFast encodes r as marshal does, when r holds nothing but
// content blocks of strings and the isError flag: no structuredContent,
// _meta, annotations or embedded resource. ok is false otherwise.
func encodeResultFast(r *Result) (b []byte, ok bool) {
	if r.StructuredContent != nil || len(r.Meta) != 0 {
		return nil, false
	}
	b = append(make([]byte, 0, 64), `{"content":[`...)
	for i, c := range r.Content {
		if len(c.Annotations) != 0 || len(c.Meta) != 0 || len(c.Resource) != 0 {
			return nil, false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = appendJSONString(b, c.Type)
		if c.Type == "text" && c.Text == "" { // Content.MarshalJSON
			b = append(b, `,"text":""}`...)
			continue
		}
		for _, f := range [...]struct{ key, value string }{
			{`,"text":`, c.Text}, {`,"data":`, c.Data}, {`,"mimeType":`, c.MimeType}, {`,"uri":`, c.URI}, {`,"name":`, c.Name},
		} {
			if f.value != "" {
				b = appendJSONString(append(b, f.key...), f.value)
			}
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), true
}

// appendJSONString appends s as encoding/json writes a string with HTML
// escaping off (guest.Marshal): invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped, control characters as \b \f \n \r \t or \u00XX.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xF])
		} else {
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
