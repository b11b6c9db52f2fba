package registry

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultCorpus is guest output the fast path takes, output it must leave
// to go-sdk, and output both must refuse.
var resultCorpus = []string{
	`{"content":[{"type":"text","text":"hi"}]}`,
	`{"content":[{"type":"text","text":"hi"}],"structuredContent":{"b":1,"a":[1,2,{"x":null}]}}`,
	`{"content":[],"structuredContent":{"n":1e400}}`,
	`{"content":[],"structuredContent":{"n":-1e400,"m":[1e-400]}}`,
	`{"content":[],"structuredContent":{"n":12345678901234567890,"m":-0.0,"o":1E+2}}`,
	`{"content":[{"type":"text","text":"1e400"}],"_meta":{"n":1e308}}`,
	"{\"content\":[],\"structuredContent\":{\"a\":\"\xff\"}}", // invalid UTF-8 the client must not receive
	"{\"content\":[{\"type\":\"text\",\"text\":\"\xc3\"}]}",
	`{"structuredContent":{"a":1,"a":2}}`,
	`{"content":[{"type":"text","text":"a\u0000b\ud800c\n\"q\""}],"isError":true,"_meta":{"k":"v","n":1.5}}`,
	` {"structuredContent": [1, 2, 3] } `,
	`{"structuredContent":"just a string"}`,
	`{"structuredContent":null}`,
	`{"structuredContent":null,"content":null}`,
	`{"content":null,"structuredContent":{}}`,
	`{"content":[{"type":"text","text":""}],"isError":false,"_meta":null}`,
	`{"content":[{"type":"text","text":"x"}],"isError":null}`,
	`{"content":[{"type":"text","text":"x"}],"content":[{"type":"text","text":"y"}]}`,
	`{"content":[{"type":"text","text":"x","text":"y"}]}`,
	`{"content":[{"type":"text","type":"image","text":"x"}]}`,
	`{"Content":[{"type":"text","text":"x"}]}`,
	`{"content":[{"Type":"text","text":"x"}]}`,
	`{"content":[{"type":"text","Text":"x"}]}`,
	`{"content":[{"type":"text","text":"x"}],"isError":1}`,
	`{"content":[{"type":"text","text":"x"}],"isError":"true"}`,
	`{"content":[{"type":"text","text":"x"}],"_meta":[]}`,
	`{"content":[{"type":"text","text":"x"}],"_meta":{"a":{"b":[true,false,null]}}}`,
	`{"content":[{"type":"text","text":"x","annotations":{"priority":1}}]}`,
	`{"content":[{"type":"text","text":"x","_meta":{"a":1}}]}`,
	`{"content":[{"type":"text","text":1}]}`,
	`{"content":[{"type":"text","text":null}]}`,
	`{"content":[{"type":"text"}]}`,
	`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}`,
	`{"content":[{"type":"image","data":"not base64!","mimeType":"image/png"}]}`,
	`{"content":[{"type":"bogus","text":"x"}]}`,
	`{"content":[null]}`,
	`{"content":"oops"}`,
	`{"content":{"type":"text","text":"x"}}`,
	`{"content":[{"type":"text","text":"x"}],"resultType":"incomplete","inputRequests":{}}`,
	`{"content":[{"type":"text","text":"x"}],"extra":1}`,
	`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1}} trailing`,
	`{"content":[{"type":"text","text":"x"}]`,
	`{"content":[{"type":"text","text":"x\xff"}]}`,
	`{"structuredContent":{"s":"\xc3\x28"}}`,
	`{"content":[],"structuredContent":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
	`{"content":[],"structuredContent":` + strings.Repeat("[", 998) + strings.Repeat("]", 998) + `}`,
	`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":"<&>"}}`,
	`{}`,
}

// The fast path and go-sdk's decoder agree: on every output of the corpus
// (and the fuzzer's) either both refuse it or both accept it, and what the
// client receives — the result as go-sdk encodes it — is the same JSON.
func TestParseResultMatchesSDK(t *testing.T) {
	fast := 0
	for _, out := range resultCorpus {
		if compareParsers(t, []byte(out)) {
			fast++
		}
	}
	if fast < 12 {
		t.Errorf("the fast path took %d outputs of the corpus; the common shapes should take it", fast)
	}
}

func FuzzParseResult(f *testing.F) {
	for _, out := range resultCorpus {
		f.Add([]byte(out))
	}
	f.Fuzz(func(t *testing.T, out []byte) { compareParsers(t, out) })
}

// compareParsers checks parseResult against go-sdk's decoder on out, and
// reports whether the fast path took it.
func compareParsers(t *testing.T, out []byte) (fast bool) {
	t.Helper()
	got, gerr := parseResult(out)
	want, werr := sdkParseResult(out)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%q: parseResult %v, go-sdk %v", out, gerr, werr)
	}
	if gerr != nil {
		return false
	}
	gj, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("%q: the result does not encode: %v", out, err)
	}
	if !utf8.Valid(gj) {
		t.Fatalf("%q: the client would receive invalid UTF-8: %q", out, gj)
	}
	wj, err := json.Marshal(want)
	if err != nil {
		t.Fatalf("%q: go-sdk's result does not encode: %v", out, err)
	}
	var g, w any
	if json.Unmarshal(gj, &g) != nil || json.Unmarshal(wj, &w) != nil || !reflect.DeepEqual(g, w) {
		t.Fatalf("%q:\nparseResult gives %s\ngo-sdk gives      %s", out, gj, wj)
	}
	_, raw := got.StructuredContent.(json.RawMessage)
	_, ok := parseCommon(out)
	return ok || raw
}

// sdkParseResult is parseResult as it was before the fast path: go-sdk's
// decoder and the same checks.
func sdkParseResult(out []byte) (*mcp.CallToolResult, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 || out[0] != '{' {
		return nil, errNeither
	}
	res, err := parseWithSDK(out)
	if err != nil {
		return nil, err
	}
	if res.Content == nil && res.StructuredContent == nil {
		return nil, errNeither
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	return res, nil
}

var errNeither = &json.UnsupportedValueError{Str: "neither content nor structuredContent"}
