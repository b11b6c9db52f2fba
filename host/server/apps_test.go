package server_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP Apps (the io.modelcontextprotocol/ui extension) pass through
// unchanged: a plugin's ui:// resource reaches the client with its MIME
// type, contents and _meta.ui, in resources/list and resources/read, and
// a tool's _meta.ui (resourceUri, visibility) in tools/list; the client's
// declared support for the extension reaches the guest in
// context.client_capabilities. The conformance fixture declares the app
// (testdata/conformance/extras.go), the echo fixture shows the context.
func TestMCPAppsPassThrough(t *testing.T) {
	const (
		uri  = "ui://conformance/app.html"
		mime = "text/html;profile=mcp-app"
		html = "<!doctype html><html><body><p id=\"app\">mcpwasm app</p>" +
			"<script type=\"module\">window.parent.postMessage({jsonrpc:\"2.0\",method:\"ui/initialize\",id:1},\"*\")</script></body></html>"
	)
	wantUI := `{"csp":{"connectDomains":["https://api.example.com"],"resourceDomains":["https://cdn.example.com"]},"prefersBorder":true}`
	wantToolUI := `{"resourceUri":"ui://conformance/app.html","visibility":["model","app"]}`
	srv, _ := newServer(t, false, loadSpec{name: "conformance"}, loadSpec{name: "echo"})
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension("io.modelcontextprotocol/ui", map[string]any{"mimeTypes": []string{mime}})
	opts := &mcp.ClientOptions{Capabilities: caps}
	sameJSON := func(what string, got any, want string) {
		t.Helper()
		b, _ := json.Marshal(got)
		var g, w any
		json.Unmarshal(b, &g)
		json.Unmarshal([]byte(want), &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s = %s, want %s", what, b, want)
		}
	}
	for _, tr := range []struct {
		name string
		cs   *mcp.ClientSession
	}{
		{"2026-07-28", connectVersion(t, srv, opts, "2026-07-28")},
		{"2025-11-25", connectVersion(t, srv, opts, "2025-11-25")},
		{"http-stateless", connectHTTP(t, srv, httpserve.Options{Stateless: true})},
	} {
		t.Run(tr.name, func(t *testing.T) {
			ctx := context.Background()
			lt, err := tr.cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var app *mcp.Tool
			for _, tool := range lt.Tools {
				if tool.Name == "test_mcp_app" {
					app = tool
				}
			}
			if app == nil {
				t.Fatal("tools/list has no test_mcp_app")
			}
			sameJSON("tools/list test_mcp_app _meta.ui", app.Meta["ui"], wantToolUI)

			lr, err := tr.cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var res *mcp.Resource
			for _, r := range lr.Resources {
				if r.URI == uri {
					res = r
				}
			}
			if res == nil || res.MIMEType != mime || res.Name != "app" {
				t.Fatalf("resources/list: %+v, want %s of type %s", res, uri, mime)
			}
			sameJSON("resources/list _meta.ui", res.Meta["ui"], wantUI)

			rr, err := tr.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil || len(rr.Contents) != 1 {
				t.Fatalf("resources/read %s: %v %+v", uri, err, rr)
			}
			c := rr.Contents[0]
			if c.URI != uri || c.MIMEType != mime || c.Text != html {
				t.Errorf("resources/read contents: uri %q, mimeType %q, text %q", c.URI, c.MIMEType, c.Text)
			}
			sameJSON("resources/read contents _meta.ui", c.Meta["ui"], wantUI)

			if tr.name == "http-stateless" {
				return // connectHTTP declares no extension
			}
			res2, err := tr.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
			if err != nil || res2.IsError {
				t.Fatalf("echo: %v %+v", err, res2)
			}
			b, _ := json.Marshal(res2.StructuredContent)
			var in struct {
				Context struct {
					Caps struct {
						Extensions map[string]any `json:"extensions"`
					} `json:"client_capabilities"`
				} `json:"context"`
			}
			json.Unmarshal(b, &in)
			sameJSON("the guest's client_capabilities.extensions", in.Context.Caps.Extensions,
				`{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}`)
		})
	}
}
