package policy

import (
	"encoding/json"
	"testing"
)

// FuzzArguments: whatever JSON a client sends as arguments, turning it
// into context.arguments and deciding on it never panics, and a valid
// object always converts.
func FuzzArguments(f *testing.F) {
	s := mustParse(f, hundredPolicies())
	for _, seed := range []string{`{}`, `{"path":"/srv/docs/1/a"}`, `{"n":1e400,"m":-0,"a":[[],{}],"o":{"x":null}}`,
		`{"a":[1,"1",1.0,true]}`, `[1]`, `null`, `{"\u0000":"\ud800"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, err := Arguments(raw)
		var obj map[string]any
		if json.Unmarshal(raw, &obj) == nil && obj != nil && err != nil {
			t.Fatalf("a valid object was refused: %v", err)
		}
		req := benchRequest()
		req.Arguments = raw
		s.Authorize(req)
		s.Listable(req)
	})
}
