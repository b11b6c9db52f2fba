// Package prompts lets an mcpwasm plugin serve MCP prompts (ABI.md §5): it
// registers them, and provides the module's list_prompts and get_prompt
// exports.
//
// Those exports exist only in plugins that import this package, so a plugin
// without prompts does not advertise the prompts capability.
//
//	func init() {
//		prompts.Prompt("summarize", "Summarize a text", func(r *prompts.Request) (*prompts.Result, error) {
//			return prompts.Reply("Summary request", prompts.UserText("Summarize:\n"+r.Arguments["text"])), nil
//		}).RequiredArgument("text", "the text to summarize")
//	}
package prompts

import (
	"errors"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Handler answers one prompts/get. Its error fails the request: the client
// gets a JSON-RPC error carrying the message (invalid params if it contains
// "not found", otherwise an internal error).
type Handler func(r *Request) (*Result, error)

// Request is one prompts/get, as the handler sees it. The embedded
// [mcpwasm.Host] carries the call's context and the host functions.
type Request struct {
	// Name is the prompt's name as the plugin declared it.
	Name string
	// Arguments are the client's arguments. Every argument declared with
	// RequiredArgument is present; the SDK refuses the request otherwise.
	Arguments map[string]string

	mcpwasm.Host
}

// Role is who says a message: RoleUser or RoleAssistant.
type Role string

// The MCP roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one message of a prompt. Content is any MCP content block:
// mcpwasm.TextContent, mcpwasm.ImageContent, an embedded resource, ...
type Message struct {
	Role    Role            `json:"role"`
	Content mcpwasm.Content `json:"content"`
}

// UserText is a user message holding text.
func UserText(text string) Message { return Message{RoleUser, mcpwasm.TextContent(text)} }

// AssistantText is an assistant message holding text.
func AssistantText(text string) Message { return Message{RoleAssistant, mcpwasm.TextContent(text)} }

// Result is an MCP GetPromptResult.
type Result struct {
	Description string         `json:"description,omitempty"`
	Messages    []Message      `json:"messages"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// Reply is a Result with a description and messages.
func Reply(description string, messages ...Message) *Result {
	return &Result{Description: description, Messages: messages}
}

// Add appends messages and returns r.
func (r *Result) Add(messages ...Message) *Result {
	r.Messages = append(r.Messages, messages...)
	return r
}

// Def is a registered prompt. Its methods add optional parts of the MCP
// Prompt declaration and return the same Def, for chaining.
type Def struct {
	name, title, description string
	args                     []argument
	handler                  Handler
}

type argument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

var prompts []*Def

func init() {
	guest.AddCheck(func() error { _, err := list(); return err })
	guest.PromptArguments = func(name string) ([]string, bool) {
		for _, d := range prompts {
			if d.name == name {
				names := make([]string, len(d.args))
				for i, a := range d.args {
					names[i] = a.Name
				}
				return names, true
			}
		}
		return nil, false
	}
}

// Prompt registers a prompt. Call it from an init function: the host asks
// for the list once, when it loads the plugin. Clients see it as
// <plugin>_<name> unless the plugin is configured unprefixed; the handler
// always sees name. Mistakes (a name outside [A-Za-z0-9_-]{1,64}, a
// duplicate, an argument declared twice) make the plugin fail to load with a
// message naming the prompt.
func Prompt(name, description string, h Handler) *Def {
	d := &Def{name: name, description: description, handler: h}
	prompts = append(prompts, d)
	return d
}

// Title sets the prompt's human-readable title.
func (d *Def) Title(title string) *Def { d.title = title; return d }

// Argument declares an optional argument.
func (d *Def) Argument(name, description string) *Def {
	d.args = append(d.args, argument{name, description, false})
	return d
}

// RequiredArgument declares an argument the client must pass. A prompts/get
// without it fails with the message "<name> is required" before the handler
// runs (an empty value counts as passed).
func (d *Def) RequiredArgument(name, description string) *Def {
	d.args = append(d.args, argument{name, description, true})
	return d
}

// Name returns the prompt's name as declared.
func (d *Def) Name() string { return d.name }

type promptJSON struct {
	Name        string     `json:"name"`
	Title       string     `json:"title,omitempty"`
	Description string     `json:"description,omitempty"`
	Arguments   []argument `json:"arguments,omitempty"`
}

// list checks every prompt and answers the MCP ListPromptsResult.
func list() ([]byte, error) {
	out := make([]promptJSON, 0, len(prompts))
	seen := map[string]bool{}
	for _, d := range prompts {
		what := "prompt " + guest.Quote(d.name)
		if !guest.ValidName(d.name) {
			return nil, errors.New(what + ": the name must be 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-'")
		}
		if seen[d.name] {
			return nil, errors.New(what + " is registered twice")
		}
		seen[d.name] = true
		if d.handler == nil {
			return nil, errors.New(what + " has no handler")
		}
		args := map[string]bool{}
		for _, a := range d.args {
			if a.Name == "" {
				return nil, errors.New(what + " has an argument without a name")
			}
			if args[a.Name] {
				return nil, errors.New(what + ": argument " + guest.Quote(a.Name) + " is declared twice")
			}
			args[a.Name] = true
		}
		out = append(out, promptJSON{d.name, d.title, d.description, d.args})
	}
	return guest.Marshal(struct {
		Prompts []promptJSON `json:"prompts"`
	}{out})
}
