//go:build !wasip1

package mcpwasm

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// envelopeSeeds are call_tool inputs as hosts send them, and the cases the
// fast decoder must leave to encoding/json.
var envelopeSeeds = []string{
	`{"request":{"name":"pixel","arguments":{}},"context":{}}`,
	`{"request":{"name":"echo","arguments":{"text":"a\"b","n":[1,{"x":"}"}]},"_meta":{"progressToken":7}},` +
		`"context":{"id":12,"_meta":{"progressToken":7},"plugin":"p","tool":"echo","deadline_ms":30000}}`,
	`{"request":{"name":"x","arguments":null},"context":{"id":"abc","deadline_ms":null,"plugin":null}}`,
	`{"request":{"name":"x"},"context":{"mounts":[{"path":"/d","read_only":true}]}}`,
	`{"request":{"Name":"x"}}`, `{"request":{"NAME":"x","name":"y"}}`, `{"request":{"name":"x","name":"y"}}`,
	`{"request":{"name":"x","_meta":{"a":1},"_meta":{"b":2}}}`, `{"request":{"n\u0061me":"x"}}`,
	`{"request":{"\u212ame":"x"}}`, `{"request":{"name":7}}`, `{"request":[]}`, `null`, `[]`, `{`, ``,
	`{"request":{"name":"x"},"context":{"deadline_ms":1.5}}`, `{"request":{"name":"x"},"context":{"deadline_ms":"9"}}`,
	`{"request":{"name":"x"},"context":{"Tool":"t"}}`, `{"request":{"name":"x"},"extra":{"request":1},"request":{"name":"y"}}`,
	` { "request" : { "name" : "x" , "arguments" : [ "," , ":" ] } , "context" : { } } `,
	`{"request":{"name":"\ud800x","arguments":{"a":"\\"}},"context":{"plugin":"\u00e9"}}`,
}

// decodeEnvelope answers what json.Unmarshal into an envelope answers:
// the same envelope, or an error with the same text.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var want envelope
		werr := json.Unmarshal(input, &want)
		got, gerr := decodeEnvelope(input)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("%q: error %v, encoding/json says %v", input, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", input, got, want)
		}
	})
}

// The fast decoder serves the inputs hosts send, and leaves the others to
// encoding/json: a fast path that never ran would pass FuzzDecodeEnvelope.
func TestDecodeEnvelopeFastPath(t *testing.T) {
	for i, fast := range []bool{true, true, true, false, false, false, false, false, true, false, false, false, false, false, false, false,
		false, false, false, false, true, true} {
		if _, ok := decodeEnvelopeFast([]byte(envelopeSeeds[i])); ok != fast {
			t.Errorf("%s: fast %v, want %v", envelopeSeeds[i], ok, fast)
		}
	}
}

// The fast decoder names every field of the envelope's request and
// context: a field added to Context must be added there too.
func TestDecodeEnvelopeKnowsEveryField(t *testing.T) {
	names := func(v any) (out []string) {
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			tag, _, _ := bytes.Cut([]byte(rt.Field(i).Tag.Get("json")), []byte(","))
			out = append(out, string(tag))
		}
		slices.Sort(out)
		return out
	}
	var env envelope
	if got, want := names(env.Request), []string{"_meta", "arguments", "name"}; !slices.Equal(got, want) {
		t.Errorf("request fields %v, the fast decoder knows %v", got, want)
	}
	if got, want := names(env.Context), []string{"_meta", "deadline_ms", "id", "mounts", "plugin", "tool"}; !slices.Equal(got, want) {
		t.Errorf("context fields %v, the fast decoder knows %v", got, want)
	}
}

// encodeResultFast writes what marshal writes, byte for byte, for the
// results it takes, and takes the ones of content blocks and isError.
func FuzzEncodeResult(f *testing.F) {
	f.Add("text", "hello <b> & \"you\"\n\b\f\r\t\\", "", "", "", "", false, uint8(0))
	f.Add("image", "", "iVBORw==", "image/png", "", "", true, uint8(0))
	f.Add("text", "", "ignored", "x/y", "u", "n", false, uint8(0))
	f.Add("resource_link", "", "", "text/plain", "file:///a", "a\u2028\u2029\x00\x1f\x7f\xff\xfe", false, uint8(1))
	f.Add("", "\ud7ff\ue000\U0010ffff", "", "", "", "", false, uint8(2))
	for extra := uint8(4); extra <= 13; extra++ { // every case below, with one block and with two
		f.Add("text", "t", "", "", "", "n", extra&1 == 0, extra)
	}
	f.Fuzz(func(t *testing.T, typ, text, data, mime, uri, name string, isErr bool, extra uint8) {
		c := Content{Type: typ, Text: text, Data: data, MimeType: mime, URI: uri, Name: name}
		r := &Result{Content: []Content{c, TextContent(name)}[:1+int(extra&1)], IsError: isErr}
		takes := true
		switch extra >> 1 & 7 {
		case 1:
			r.Content = []Content{}
		case 2:
			r.StructuredContent, takes = map[string]any{"a": text}, false
		case 3:
			r.Meta, takes = map[string]any{"k": 1}, false
		case 4:
			r.Content[0].Annotations, takes = map[string]any{"audience": []string{"user"}}, false
		case 5:
			r.Content[0].Meta, takes = map[string]any{"k": data}, false
		case 6:
			r.Content[0].Resource, takes = json.RawMessage(`{"uri":"a"}`), false
		}
		want, werr := marshal(r)
		got, ok := encodeResultFast(r)
		if ok != takes {
			t.Fatalf("fast %v, want %v for %#v", ok, takes, r)
		}
		if ok && (werr != nil || !bytes.Equal(got, want)) {
			t.Fatalf("%#v:\n got %s\nwant %s (%v)", r, got, want, werr)
		}
	})
}
