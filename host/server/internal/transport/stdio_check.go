package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// What go-sdk v1.8.0's stream connection does with a line, and why every
// line is checked here first: it ends the session, with no reply, on
// anything that is not one JSON value followed by a newline, on a message
// without "jsonrpc": "2.0", on an id that is neither a string nor a number,
// on `[]`, and on a line over its length cap. It decodes ids into float64, so
// 1.5 comes back as 1 and a 30-digit id as -9223372036854775808, and it
// answers nothing to a request reusing the id of one in flight. The checks
// below answer such lines themselves (JSON-RPC 2.0: -32700 for what is not
// JSON, -32600 for what is not a valid request) and give go-sdk only what it
// reads faithfully.

// internalIDPrefix starts the ids that stand in for client ids go-sdk would
// not give back as sent (1.5, 1e3, 12345678901234567890, "\u0041"); the
// reply carries the client's id again, byte for byte. A client's own string
// id with this prefix is replaced as well, so the two never collide.
const internalIDPrefix = "mcpwasm-stdio-id:"

// maxExactID is the largest integer id go-sdk keeps exact: it decodes ids
// into float64 and converts to int64.
const maxExactID = 1 << 53

// idClass says what to do with a message's id.
type idClass int

const (
	idAbsent  idClass = iota // no id: a notification
	idNull                   // "id": null, which MCP forbids
	idKept                   // go-sdk gives it back as sent
	idMapped                 // a string or number go-sdk would change
	idInvalid                // a bool, object or array
)

var canonicalInt = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// classifyID says how go-sdk would treat raw, and for kept ids returns the
// id go-sdk will see.
func classifyID(raw json.RawMessage) (idClass, jsonrpc.ID) {
	switch {
	case len(raw) == 0:
		return idAbsent, jsonrpc.ID{}
	case string(raw) == "null":
		return idNull, jsonrpc.ID{}
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil || strings.HasPrefix(s, internalIDPrefix) {
			return idMapped, jsonrpc.ID{}
		}
		if enc, err := marshalNoEscape(s); err != nil || !bytes.Equal(enc, raw) {
			return idMapped, jsonrpc.ID{} // escapes or bytes go-sdk would rewrite
		}
		return idKept, mustID(s)
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		if canonicalInt.Match(raw) && string(raw) != "-0" {
			if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && n <= maxExactID && n >= -maxExactID {
				return idKept, mustID(float64(n))
			}
		}
		return idMapped, jsonrpc.ID{}
	}
	return idInvalid, jsonrpc.ID{}
}

// member is one name/value pair of a JSON object, the value as sent.
type member struct {
	key string
	raw json.RawMessage
}

// parseObject splits a JSON object into its members, in order, each
// value as sent (a slice of data, not a copy). Every caller passes valid
// JSON (a line json.Valid accepted, an element or member of one, or
// go-sdk's own encoding), so this is a scan for the top level's
// boundaries rather than a parse; on anything else it returns an error,
// never panics and never loops. A repeated name is refused: which one
// go-sdk would read is its parser's business. It runs once per message on
// the stdio hot path, where encoding/json's token decoder cost about 4% of
// a native call (BenchmarkAdmit, BenchmarkStdioRatio).
func parseObject(data []byte) ([]member, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, errNotObject
	}
	i = skipSpace(data, i+1)
	out := make([]member, 0, 6)
	if i < len(data) && data[i] == '}' {
		return out, nil
	}
	var seen map[string]bool // past a few members; until then a linear look
	for {
		if i >= len(data) || data[i] != '"' {
			return nil, errMalformedObject
		}
		end, plain := scanString(data, i)
		if end < 0 {
			return nil, errMalformedObject
		}
		var key string
		if plain {
			key = string(data[i+1 : end-1])
		} else if json.Unmarshal(data[i:end], &key) != nil { // escapes or non-ASCII: as encoding/json reads them
			return nil, errMalformedObject
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil, errMalformedObject
		}
		i = skipSpace(data, i+1)
		end = scanValue(data, i)
		if end < 0 {
			return nil, errMalformedObject
		}
		if dup(out, seen, key) {
			return nil, fmt.Errorf("the member %q appears twice", key)
		}
		out = append(out, member{key, data[i:end]})
		if seen == nil && len(out) > 8 {
			seen = make(map[string]bool, 2*len(out))
			for _, m := range out {
				seen[m.key] = true
			}
		} else if seen != nil {
			seen[key] = true
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return nil, errMalformedObject
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return out, nil
		default:
			return nil, errMalformedObject
		}
	}
}

var (
	errNotObject       = errors.New("not a JSON object")
	errMalformedObject = errors.New("malformed JSON object")
)

// dup reports whether key is among the members so far (seen holds them all
// once it exists).
func dup(ms []member, seen map[string]bool, key string) bool {
	if seen != nil {
		return seen[key]
	}
	for _, m := range ms {
		if m.key == key {
			return true
		}
	}
	return false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString returns the index just past the JSON string starting at
// data[i] (a quote), or -1 if it does not end; plain says it holds neither
// an escape nor a byte past ASCII, so its bytes are its value.
func scanString(data []byte, i int) (end int, plain bool) {
	plain = true
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1, plain
		case c == '\\':
			plain = false
			i++ // the escaped byte (a \uXXXX's digits need no care)
		case c >= 0x80:
			plain = false
		}
	}
	return -1, false
}

// scanValue returns the index just past the JSON value starting at data[i],
// or -1 if it does not end. Nesting is counted, not recursed into.
func scanValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		end, _ := scanString(data, i)
		return end
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				end, _ := scanString(data, i)
				if end < 0 {
					return -1
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	// A number, true, false or null: up to the next delimiter.
	start := i
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			if i == start {
				return -1
			}
			return i
		}
		i++
	}
	return i
}

func lookup(ms []member, key string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.key == key {
			return m.raw, true
		}
	}
	return nil, false
}

// rebuild writes the object ms back with the value of key replaced.
func rebuild(ms []member, key string, value []byte) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshalNoEscape(m.key)
		b.Write(k)
		b.WriteByte(':')
		if m.key == key {
			b.Write(value)
		} else {
			b.Write(m.raw)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshalNoEscape encodes v as go-sdk does: without HTML escaping.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// errorReply is a JSON-RPC error response; a nil id is written as null.
func errorReply(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, msg}})
	if err != nil { // id is always valid JSON here; keep the reply valid anyway
		b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": wireError{code, msg}})
	}
	return b
}

// parseErrorText explains why a line is not JSON.
func parseErrorText(line []byte) string {
	if bytes.HasPrefix(line, []byte("\xef\xbb\xbf")) {
		return "the line starts with a UTF-8 byte order mark"
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&v); err != nil {
		return err.Error()
	}
	return "more than one JSON value on the line (messages are one per line)"
}

// mustID makes a jsonrpc.ID of a string or a float64 holding an integer of
// at most 2^53, as go-sdk does when it decodes an id.
func mustID(v any) jsonrpc.ID {
	id, _ := jsonrpc.MakeID(v)
	return id
}
