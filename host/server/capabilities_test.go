package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCapsCacheMatchesSDK: the capabilities a guest is told
// (context.client_capabilities) are what go-sdk's
// ServerRequest.ClientCapabilities makes of the request, encoded, whether
// they come from the session or from the request's _meta, the first time a
// value is seen and every time after, values interleaved across sessions.
// The values include ones a key without types or lengths would confuse,
// and one go-sdk cannot decode (it then falls back to the session's
// capabilities: each session must get its own).
func TestCapsCacheMatchesSDK(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "echo"})
	values := []string{
		`{}`,
		`{"sampling":{}}`,
		`{"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}}`,
		`{"roots":{"listChanged":true}}`,
		`{"roots":{}}`,
		`{"experimental":{"x":["a","b"]}}`,
		`{"experimental":{"x":["ab"]}}`,
		`{"experimental":{"x":["ab",""]}}`,
		`{"experimental":{"x":"t"}}`,
		`{"experimental":{"x":["as","b"]}}`,
		`{"experimental":{"x":["a","sb"]}}`,
		`{"experimental":{"x":"1"}}`,
		`{"experimental":{"x":1}}`,
		`{"experimental":{"x":true}}`,
		`{"experimental":{"x":{"a":"b"}}}`,
		`{"experimental":{"x":[{"a":"b"}]}}`,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}},"experimental":{"é":1.5e300}}`,
		`{"sampling":"not an object"}`, // go-sdk falls back to the session's (2025-11-25)
		`null`,
		`{"experimental":{"big":"` + strings.Repeat("x", 5000) + `"}}`, // not cached
	}
	sessions := map[string]*mcp.ClientOptions{
		"sampling": {Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}},
		"roots":    {Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{ListChanged: true}}},
	}
	type session struct {
		name, era string
		cs        *mcp.ClientSession
	}
	var all []session
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		for name, opts := range sessions {
			all = append(all, session{name, era, connectVersion(t, srv, opts, era)})
		}
	}
	// told is what the guest was told for a call with meta (nil: the
	// client's own _meta).
	told := func(s session, meta map[string]any) any {
		t.Helper()
		res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}, Meta: meta})
		if err != nil || res.IsError {
			t.Fatalf("echo: %v %+v", err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var in struct {
			Context struct {
				Caps any `json:"client_capabilities"`
			} `json:"context"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		return in.Context.Caps
	}
	// fromSDK is what go-sdk's ClientCapabilities makes of the value as the
	// server decodes it, or of the session's when it cannot.
	fromSDK := func(value string, session any) any {
		var v any
		json.Unmarshal([]byte(value), &v)
		r := &mcp.ServerRequest[*mcp.CallToolParamsRaw]{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: v}}}
		caps := r.ClientCapabilities()
		if caps == nil {
			return session
		}
		b, _ := json.Marshal(caps)
		var out any
		json.Unmarshal(b, &out)
		return out
	}
	own := map[session]any{}
	for _, s := range all {
		own[s] = told(s, nil) // the session's, or (2026-07-28) the client's _meta
		if own[s] == nil {
			t.Fatalf("%s %s: the guest was told no capabilities", s.era, s.name)
		}
	}
	if reflect.DeepEqual(own[all[0]], own[all[1]]) {
		t.Fatalf("both sessions were told %v", own[all[0]])
	}
	for round := range 3 {
		for i := range values {
			if round == 1 {
				i = len(values) - 1 - i
			}
			for _, s := range all {
				var v any
				json.Unmarshal([]byte(values[i]), &v)
				meta := map[string]any{mcp.MetaKeyClientCapabilities: v}
				want := fromSDK(values[i], own[s])
				if s.era == "2026-07-28" && (values[i] == `null` || values[i] == `{"sampling":"not an object"}`) {
					continue // the client puts its own in place of null; go-sdk refuses the other
				}
				if got := told(s, meta); !reflect.DeepEqual(got, want) {
					t.Errorf("round %d, %s %s, _meta capabilities %s: the guest was told %s, go-sdk says %s",
						round, s.era, s.name, values[i], js(got), js(want))
				}
			}
		}
		for _, s := range all {
			if got := told(s, nil); !reflect.DeepEqual(got, own[s]) {
				t.Errorf("round %d, %s %s: the guest was told %s, before %s", round, s.era, s.name, js(got), js(own[s]))
			}
		}
	}
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
