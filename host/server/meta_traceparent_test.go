package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A well-formed traceparent in a request's _meta reaches the guest, in
// context._meta and in the request's _meta; a malformed one reaches it
// nowhere, and the rest of _meta stays verbatim. The echo fixture returns
// its whole input, so the test reads what the guest was given.
func TestTraceparentReachesGuest(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "echo"})
	const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	cases := map[string]struct {
		tp   any
		want string // "" = absent
	}{
		"valid":          {valid, valid},
		"later version":  {"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"},
		"newline":        {valid + "\n{\"level\":\"ERROR\"}", ""},
		"uppercase":      {strings.ToUpper(valid), ""},
		"zero trace id":  {"00-00000000000000000000000000000000-00f067aa0ba902b7-01", ""},
		"version ff":     {"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", ""},
		"huge":           {"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-" + strings.Repeat("a", 1<<16), ""},
		"not a string":   {map[string]any{"evil": true}, ""},
		"number":         {42, ""},
		"control in ext": {"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-\x1b[31m", ""},
	}
	for _, tr := range []struct {
		name string
		cs   *mcp.ClientSession
	}{
		{"in-memory", connect(t, srv, nil)},
		{"http-stateless", connectHTTP(t, srv, httpserve.Options{Stateless: true})},
	} {
		for name, c := range cases {
			t.Run(tr.name+"/"+name, func(t *testing.T) {
				res, err := tr.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo",
					Arguments: map[string]any{},
					Meta:      mcp.Meta{"traceparent": c.tp, "com.example/kept": "yes"}})
				if err != nil || res.IsError {
					t.Fatalf("echo: %v %+v", err, res)
				}
				b, _ := json.Marshal(res.StructuredContent)
				var in struct {
					Request struct {
						Meta map[string]any `json:"_meta"`
					} `json:"request"`
					Context struct {
						Meta map[string]any `json:"_meta"`
					} `json:"context"`
				}
				if err := json.Unmarshal(b, &in); err != nil {
					t.Fatal(err)
				}
				for where, m := range map[string]map[string]any{"context._meta": in.Context.Meta, "request._meta": in.Request.Meta} {
					got, present := m["traceparent"]
					switch {
					case c.want == "" && present:
						t.Errorf("%s.traceparent = %q reached the guest", where, got)
					case c.want != "" && got != c.want:
						t.Errorf("%s.traceparent = %v, want %q", where, got, c.want)
					}
					if m["com.example/kept"] != "yes" {
						t.Errorf("%s lost the other keys: %v", where, m)
					}
				}
			})
		}
	}
}
