// Command sdk-go is the SDK parity plugin (testdata/SDK-PARITY.md) written
// with the Go guest SDK. build.sh compiles it twice, with standard Go
// (sdk_go.wasm) and TinyGo (sdk_tinygo.wasm); LANG tells them apart.
package main

import (
	"fmt"
	"runtime"
	"strings"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/completion"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/prompts"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/resources"
)

// lang is the fixture's language label: "go" or "tinygo".
var lang = map[string]string{"gc": "go", "tinygo": "tinygo"}[runtime.Compiler]

func init() {
	registerTools()
	registerResources()
	registerPrompts()
}

func registerResources() {
	resources.Resource("parity://about", "about", func(*resources.Request) (*resources.Result, error) {
		return resources.Text("parity plugin in " + lang), nil
	}).MimeType("text/plain")

	resources.Resource("parity://blob", "blob", func(*resources.Request) (*resources.Result, error) {
		return resources.Blob([]byte{0, 1, 2, 3}), nil
	}).MimeType("application/octet-stream")

	resources.Template("parity://items/{id}", "item", func(r *resources.Request) (*resources.Result, error) {
		id := r.Vars["id"]
		if id != "1" && id != "2" && id != "3" {
			return nil, fmt.Errorf("item %q: %w", id, resources.ErrNotFound)
		}
		return resources.Text(`{"id":"` + id + `"}`), nil
	}).MimeType("application/json")

	completion.ForTemplate("parity://items/{id}", "id", completion.Prefix("1", "2", "3"))
}

func registerPrompts() {
	prompts.Prompt("review", "Review some code", func(r *prompts.Request) (*prompts.Result, error) {
		language := r.Arguments["language"]
		if language == "" {
			language = "code"
		}
		return prompts.Reply("Code review", prompts.UserText("Review this "+language+":\n"+r.Arguments["code"])), nil
	}).RequiredArgument("code", "the code to review").Argument("language", "the code's language")

	completion.ForPrompt("review", "language", completion.Prefix("go", "python", "rust", "typescript"))
}

func main() {}

// joinURIs joins the roots' URIs with ",".
func joinURIs(roots []mcpwasm.Root) string {
	uris := make([]string, len(roots))
	for i, r := range roots {
		uris[i] = r.URI
	}
	return strings.Join(uris, ",")
}
