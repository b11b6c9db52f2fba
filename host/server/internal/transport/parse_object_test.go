package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// parseObjectDecoder is the reference parseObject is checked against:
// encoding/json's token decoder, which the stdio transport used before the
// scan (and which cost about 4% of a native call over stdio).
func parseObjectDecoder(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("the member %q appears twice", key)
		}
		seen[key] = true
		out = append(out, member{key, raw})
	}
	return out, nil
}

var parseObjectSeeds = []string{
	`{}`, ` { } `, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":[1,2,{"b":"}"}]}}}`,
	`{"a":1,"a":2}`, `{"\u0061":1,"a":2}`, `{"a\"b":"c\\","d":[]}`, `{ "id" : -1.5e3 , "x" : true , "y":null,"z":false }`,
	"{\"k\xff\":1,\"k\xef\xbf\xbd\":2}", `{"é":"ü","e":"\ud83d\ude00"}`, `{"s":"]}","t":"[{"}`, `{"a":[[[[[[[[]]]]]]]],"b":{"c":{"d":{}}}}`,
	"{\n\t\"a\"\r\n:\n1\n}", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"a":11}`,
	`{"a":"x\\"}`, `[1]`, `"s"`, `{"a":1`, `{"a"}`, `{"a":}`, `{,}`, `{"a":1,}`, ``, `{"a":"\`, `{"a":[}`,
}

// FuzzParseObject holds the scan to the decoder on every valid JSON object
// (the same members, names decoded alike, values byte for byte, the same
// repeated-name refusals), and to "an error, no panic" on anything else.
// It fails, for example, when a string's escaped quote ends it, when
// a "}" inside a string closes the object, or when names are compared
// undecoded ("\u0061" and "a").
func FuzzParseObject(f *testing.F) {
	for _, s := range parseObjectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parseObject(data)
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		if !json.Valid(data) || len(trimmed) == 0 || trimmed[0] != '{' {
			return // only: no panic, no endless loop
		}
		want, werr := parseObjectDecoder(data)
		if (err != nil) != (werr != nil) {
			t.Fatalf("%q: scan err %v, decoder err %v", data, err, werr)
		}
		if err != nil {
			if err.Error() != werr.Error() {
				t.Fatalf("%q: scan %q, decoder %q", data, err, werr)
			}
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: scan %d members, decoder %d", data, len(got), len(want))
		}
		for i := range got {
			if got[i].key != want[i].key || !bytes.Equal(got[i].raw, want[i].raw) {
				t.Fatalf("%q member %d: scan %q=%s, decoder %q=%s", data, i, got[i].key, got[i].raw, want[i].key, want[i].raw)
			}
		}
	})
}

// Deep nesting is counted, not recursed into: a member nested a million
// levels deep is skipped whole.
func TestParseObjectDeep(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `,"b":1}`
	ms, err := parseObject([]byte(deep))
	if err != nil || len(ms) != 2 || ms[1].key != "b" || string(ms[1].raw) != "1" {
		t.Fatalf("got %d members, %v", len(ms), err)
	}
}

// BenchmarkAdmit is the stdio transport's per-message check of a tools/call
// line (parse, id, decode), the part of the stdio path that go-sdk's own
// stream transport does not do.
func BenchmarkAdmit(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"echo","arguments":{"message":"the quick brown fox jumps over the lazy dog"},"_meta":{"progressToken":3}}}`)
	b.Run("parseObject", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parseObject(line); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parseObjectDecoder(line); err != nil {
				b.Fatal(err)
			}
		}
	})
}
