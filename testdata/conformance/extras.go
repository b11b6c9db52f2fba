package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// What the 2026-07-28 rules beyond the conformance suite's own fixtures need
// (host/server/apps_test.go, cache_test.go, headers_test.go):
//
//   - test_x_mcp_header: an input property annotated x-mcp-header, which
//     arms the alpha suite's http-custom-header-server-validation scenario
//     (SEP-2243; go-sdk's everything-server declares the same tool).
//   - An MCP App (the io.modelcontextprotocol/ui extension): a ui://
//     resource of type text/html;profile=mcp-app with _meta.ui on its
//     listing and its contents, and test_mcp_app, whose _meta.ui names it.
//     The host must pass both through unchanged.
//   - test://cache/{ttl}/{scope}: a read whose result declares ttlMs and
//     cacheScope as the URI says, raw, so that hostile values can be tried.

const (
	appURI      = "ui://conformance/app.html"
	appMimeType = "text/html;profile=mcp-app"
	appHTML     = "<!doctype html><html><body><p id=\"app\">mcpwasm app</p>" +
		"<script type=\"module\">window.parent.postMessage({jsonrpc:\"2.0\",method:\"ui/initialize\",id:1},\"*\")</script></body></html>"
	cachePrefix = "test://cache/"
)

// appUI is the _meta.ui of the app resource (listing and contents).
var appUI = map[string]any{
	"csp":           map[string]any{"connectDomains": []string{"https://api.example.com"}, "resourceDomains": []string{"https://cdn.example.com"}},
	"prefersBorder": true,
}

// toolMeta and resourceMeta are the _meta of tools and resources that
// declare one, by name and URI.
var (
	toolMeta = map[string]map[string]any{
		"test_mcp_app": {"ui": map[string]any{"resourceUri": appURI, "visibility": []string{"model", "app"}}},
	}
	resourceMeta = map[string]map[string]any{appURI: {"ui": appUI}}
)

func init() {
	tools = append(tools,
		tool{"test_x_mcp_header", "Tests SEP-2243 Mcp-Param-* server-side validation", json.RawMessage(`{
			"type": "object",
			"properties": {
				"region": {"type": "string", "description": "mirrored into Mcp-Param-Region", "x-mcp-header": "Region"},
				"level": {"type": "integer", "description": "non-mirrored argument"}
			}
		}`), func(args json.RawMessage, _ callContext) callToolResult {
			var in struct {
				Region string `json:"region"`
			}
			json.Unmarshal(args, &in)
			return ok(text("region=" + in.Region))
		}},
		tool{"test_mcp_app", "Shows the MCP App at " + appURI, json.RawMessage(noArgs),
			func(json.RawMessage, callContext) callToolResult {
				return ok(text("app shown"))
			}})
	resources = append(resources, resource{appURI, "app", "An MCP App (HTML for the client to render)", appMimeType})
	templates = append(templates, resourceTemplate{cachePrefix + "{ttl}/{scope}", "cache",
		"A read that declares the ttlMs and cacheScope its URI names", "text/plain"})
}

// MarshalJSON adds the tool's _meta, if it declares one.
func (t tool) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Meta        map[string]any  `json:"_meta,omitempty"`
	}{t.Name, t.Description, t.InputSchema, toolMeta[t.Name]})
}

// MarshalJSON adds the resource's _meta, if it declares one.
func (r resource) MarshalJSON() ([]byte, error) {
	type plain resource // without this method
	return json.Marshal(struct {
		plain
		Meta map[string]any `json:"_meta,omitempty"`
	}{plain(r), resourceMeta[r.URI]})
}

// readExtra reads the app and the cache template; ok is false for other
// URIs.
func readExtra(uri string) (json.RawMessage, bool) {
	if uri == appURI {
		out, _ := json.Marshal(map[string]any{"contents": []any{map[string]any{
			"uri": appURI, "mimeType": appMimeType, "text": appHTML, "_meta": map[string]any{"ui": appUI}}}})
		return out, true
	}
	rest, found := strings.CutPrefix(uri, cachePrefix)
	ttl, scope, two := strings.Cut(rest, "/")
	if !found || !two || ttl == "" || strings.Contains(scope, "/") {
		return nil, false
	}
	// ttl goes in raw (a number, or anything else a hostile plugin might
	// write); scope as a string.
	out := fmt.Sprintf(`{"contents":[{"uri":%q,"mimeType":"text/plain","text":"cached"}],"ttlMs":%s,"cacheScope":%q}`,
		uri, ttl, scope)
	return json.RawMessage(out), true
}
