// Command notes is an mcpwasm plugin that serves a few notes as resources,
// through a resource template, a prompt and completions, with the packages
// resources, prompts and completion. It has no tools.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o notes.wasm .
//	mcpwasm inspect notes.wasm
package main

import (
	"fmt"
	"sort"
	"strings"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/completion"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/prompts"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/resources"
)

var notes = map[string]string{
	"groceries": "milk, eggs, bread",
	"ideas":     "a plugin that serves notes",
	"todo":      "write the README",
}

func names() []string {
	out := make([]string, 0, len(notes))
	for n := range notes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func init() {
	resources.Resource("notes://index", "index", func(*resources.Request) (*resources.Result, error) {
		return resources.Text(strings.Join(names(), "\n")), nil
	}).Description("The names of all notes, one per line").MimeType("text/plain")

	resources.Template("notes://note/{name}", "note", func(r *resources.Request) (*resources.Result, error) {
		text, ok := notes[r.Vars["name"]]
		if !ok {
			return nil, fmt.Errorf("note %q: %w", r.Vars["name"], resources.ErrNotFound)
		}
		r.LogAs(mcpwasm.LevelDebug, "notes", "read "+r.URI) // every handler has the host functions
		return resources.Text(text), nil
	}).Description("One note").MimeType("text/markdown")

	prompts.Prompt("summarize", "Summarize a note", func(r *prompts.Request) (*prompts.Result, error) {
		text, ok := notes[r.Arguments["name"]]
		if !ok {
			return nil, fmt.Errorf("note %q not found", r.Arguments["name"])
		}
		return prompts.Reply("Summary of "+r.Arguments["name"], prompts.UserText("Summarize in one line:\n"+text)), nil
	}).RequiredArgument("name", "the note's name")

	completion.ForPrompt("summarize", "name", completion.Prefix(names()...))
	completion.ForTemplate("notes://note/{name}", "name", completion.Prefix(names()...))
}

func main() {}
