// Package completion lets an mcpwasm plugin suggest values for its prompts'
// arguments and its resource templates' variables (MCP completion/complete,
// ABI.md §5). It provides the module's complete export, which exists only in
// plugins that import this package.
//
//	func init() {
//		prompts.Prompt("review", "Review some code", review).Argument("language", "")
//		completion.ForPrompt("review", "language", completion.Prefix("go", "python", "rust"))
//	}
//
// A completion for a prompt or template the plugin does not declare, or for
// an argument or variable it does not have, stops the plugin from loading
// with a message naming it.
package completion

import (
	"errors"
	"strings"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Handler suggests values for what the user has typed so far, r.Value. The
// host sends the client at most 100 of them (the SDK sets total and hasMore
// when there are more). Its error fails the request with a JSON-RPC error.
type Handler func(r *Request) ([]string, error)

// The MCP reference types.
const (
	RefPrompt   = "ref/prompt"
	RefResource = "ref/resource"
)

// Ref is what is being completed: a prompt (Type RefPrompt, Name as the
// plugin declared it) or a resource template (Type RefResource, URI the
// template as declared).
type Ref struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// Request is one completion/complete, as the handler sees it. The embedded
// [mcpwasm.Host] carries the call's context and the host functions.
type Request struct {
	Ref Ref
	// Argument is the name of the prompt argument or template variable.
	Argument string
	// Value is what the user has typed so far.
	Value string
	// Resolved are the values of the other arguments or variables the
	// client already knows (the request's context.arguments), if any.
	Resolved map[string]string

	mcpwasm.Host
}

type completer struct {
	ref      Ref
	argument string
	handler  Handler
}

var completers []completer

func init() { guest.AddReferenceCheck(check) }

// ForPrompt registers h to complete the argument of the prompt the plugin
// declares as prompt (with package prompts). Call it from an init function.
func ForPrompt(prompt, argument string, h Handler) {
	completers = append(completers, completer{Ref{Type: RefPrompt, Name: prompt}, argument, h})
}

// ForTemplate registers h to complete the variable of the resource template
// the plugin declares as uriTemplate (with package resources). Call it from
// an init function.
func ForTemplate(uriTemplate, variable string, h Handler) {
	completers = append(completers, completer{Ref{Type: RefResource, URI: uriTemplate}, variable, h})
}

// Prefix is a Handler that suggests those of values that start with what the
// user typed (case-sensitive), in the order given.
func Prefix(values ...string) Handler {
	return func(r *Request) ([]string, error) {
		out := []string{}
		for _, v := range values {
			if strings.HasPrefix(v, r.Value) {
				out = append(out, v)
			}
		}
		return out, nil
	}
}

// check is the load-time check list_tools runs: every completer names a
// declared prompt argument or template variable, once.
func check() error {
	type key struct {
		ref      Ref
		argument string
	}
	seen := map[key]bool{}
	for _, c := range completers {
		k := key{c.ref, c.argument}
		if seen[k] {
			return errors.New("a completion for " + guest.Quote(c.argument) + " of " + guest.Quote(c.ref.Name+c.ref.URI) + " is registered twice")
		}
		seen[k] = true
		// The prompt or template completed, what declares its arguments, and
		// how messages name them.
		declared, id, kind, ctor, how, none := guest.TemplateVariables, c.ref.URI, "resource template", "completion.ForTemplate(", "resources.Template", "the template has no variable "
		if c.ref.Type == RefPrompt {
			declared, id, kind, ctor, how, none = guest.PromptArguments, c.ref.Name, "prompt", "completion.ForPrompt(", "prompts.Prompt", "the prompt declares no argument "
		}
		what := ctor + guest.Quote(id) + ", " + guest.Quote(c.argument) + ")"
		if c.handler == nil {
			return errors.New(what + " has no handler")
		}
		var names []string
		ok := declared != nil
		if ok {
			names, ok = declared(id)
		}
		if !ok {
			return errors.New(what + ": the plugin declares no " + kind + " " + guest.Quote(id) + " (declare it with " + how + ")")
		}
		if !contains(names, c.argument) {
			return errors.New(what + ": " + none + guest.Quote(c.argument))
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// maxValues is how many values MCP lets a CompleteResult carry.
const maxValues = 100

// complete runs one complete export: the CompleteResult to output, or the
// error that fails the export.
func complete(input []byte) ([]byte, error) {
	guest.StartCall()
	type request struct {
		Ref      Ref `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	req, ctx, err := guest.Decode[request, mcpwasm.Context]("complete", "", input)
	if err != nil {
		return nil, err
	}
	var h Handler
	for _, c := range completers {
		if c.ref.Type == req.Ref.Type && c.argument == req.Argument.Name &&
			(c.ref.Type == RefPrompt && c.ref.Name == req.Ref.Name || c.ref.Type == RefResource && c.ref.URI == req.Ref.URI) {
			h = c.handler
			break
		}
	}
	var values []string
	if h != nil {
		r := &Request{Ref: req.Ref, Argument: req.Argument.Name, Value: req.Argument.Value,
			Resolved: req.Context.Arguments, Host: mcpwasm.Host{Context: ctx}}
		values, err = guest.Handle("the completion of "+guest.Quote(req.Argument.Name), func() ([]string, error) { return h(r) })
		if err != nil {
			return nil, err
		}
	}
	type details struct {
		Values  []string `json:"values"`
		Total   int      `json:"total,omitempty"`
		HasMore bool     `json:"hasMore,omitempty"`
	}
	d := details{Values: values}
	if d.Values == nil {
		d.Values = []string{}
	}
	if len(values) > maxValues {
		d = details{values[:maxValues], len(values), true}
	}
	return guest.Marshal(struct {
		Completion details `json:"completion"`
	}{d})
}
