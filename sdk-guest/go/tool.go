package mcpwasm

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Handler runs one tool call. Returning an error makes the call's result an
// isError CallToolResult whose text is the error's message; the model sees it
// and can act on it, so write it for the model ("no match for pattern ...").
// Returning (nil, nil) answers an empty, successful result.
type Handler func(c *Call) (*Result, error)

// ToolDef is a registered tool. Its methods add optional parts of the MCP
// Tool declaration and return the same ToolDef, for chaining.
type ToolDef struct {
	name         string
	title        string
	description  string
	inputSchema  string
	outputSchema string
	annotations  string
	task         string // "" (forbidden), "optional" or "required"
	inputFirst   bool
	handler      Handler
}

var tools []*ToolDef

// Tool registers a tool. Call it from an init function (or main's package
// variables): the host asks for the list once, when it loads the plugin.
//
// name must match [A-Za-z0-9_-]{1,64} (the host's rule, and what model APIs accept); inputSchema is a JSON Schema object
// with "type": "object". The host validates each call's arguments against it
// before the plugin runs, so a handler sees only arguments that fit. Mistakes
// here (a bad name, a duplicate, an invalid schema) make list_tools fail, and
// the host refuses to load the plugin with a message naming the tool.
func Tool(name, description, inputSchema string, h Handler) *ToolDef {
	t := &ToolDef{name: name, description: description, inputSchema: inputSchema, handler: h}
	tools = append(tools, t)
	return t
}

// Title sets the tool's human-readable title.
func (t *ToolDef) Title(title string) *ToolDef { t.title = title; return t }

// OutputSchema declares the JSON Schema (an object schema) of the tool's
// structuredContent. A tool that declares one should answer with [JSON] or set
// Result.StructuredContent to an object matching it.
func (t *ToolDef) OutputSchema(schema string) *ToolDef { t.outputSchema = schema; return t }

// Annotations sets the MCP tool annotations as a JSON object, for example
// `{"readOnlyHint":true,"openWorldHint":false}`.
func (t *ToolDef) Annotations(annotations string) *ToolDef { t.annotations = annotations; return t }

// Task makes the tool run as a task (MCP's io.modelcontextprotocol/tasks
// extension, ABI.md §2) when the client supports tasks: the host answers
// the call at once with a task and runs the handler detached from the
// request, under the server's task time limit. mode is "optional" (a
// client without tasks gets a plain call) or "required" (such a client is
// refused). The handler is the same either way.
func (t *ToolDef) Task(mode string) *ToolDef { t.task = mode; return t }

// TaskInputFirst makes a task tool ask its questions before its task
// starts: a call without the answers runs as a plain call, answered with
// the questions by multi round-trip, and the task starts with the call
// that brings them (ABI.md §2). Without it, questions asked during a task
// wait in the task for tasks/update.
func (t *ToolDef) TaskInputFirst() *ToolDef { t.inputFirst = true; return t }

// Name returns the tool's name as declared.
func (t *ToolDef) Name() string { return t.name }

func findTool(name string) *ToolDef {
	for _, t := range tools {
		if t.name == name {
			return t
		}
	}
	return nil
}

func toolNames() string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

type toolJSON struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Execution    *executionJSON  `json:"execution,omitempty"`
}

type executionJSON struct {
	TaskSupport string `json:"taskSupport"`
	InputFirst  bool   `json:"inputFirst,omitempty"`
}

// listToolsJSON checks every registered tool, and what the optional packages
// declared, and answers the MCP ListToolsResult. An error names the tool,
// resource or prompt at fault.
func listToolsJSON() ([]byte, error) {
	list := make([]toolJSON, 0, len(tools))
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		if err := validName(t.name); err != nil {
			return nil, err
		}
		if seen[t.name] {
			return nil, errors.New("tool " + quote(t.name) + " is registered twice")
		}
		seen[t.name] = true
		if t.handler == nil {
			return nil, errors.New("tool " + quote(t.name) + " has no handler")
		}
		tj := toolJSON{Name: t.name, Title: t.title, Description: t.description}
		var err error
		if tj.InputSchema, err = objectSchema(t.inputSchema); err != nil {
			return nil, errors.New("tool " + quote(t.name) + ": inputSchema " + err.Error())
		}
		if t.outputSchema != "" {
			if tj.OutputSchema, err = objectSchema(t.outputSchema); err != nil {
				return nil, errors.New("tool " + quote(t.name) + ": outputSchema " + err.Error())
			}
		}
		if tj.Annotations, err = guest.Annotations("tool "+quote(t.name), t.annotations); err != nil {
			return nil, err
		}
		switch {
		case t.task == "optional" || t.task == "required":
			tj.Execution = &executionJSON{TaskSupport: t.task, InputFirst: t.inputFirst}
		case t.task != "":
			return nil, errors.New("tool " + quote(t.name) + `: Task mode must be "optional" or "required", not ` + quote(t.task))
		case t.inputFirst:
			return nil, errors.New("tool " + quote(t.name) + ": TaskInputFirst without Task")
		}
		list = append(list, tj)
	}
	// The resources, prompts and completion packages check what was
	// declared through them here: list_tools is the first export the host
	// calls, so a mistake stops the plugin from loading.
	if err := guest.Check(); err != nil {
		return nil, err
	}
	return marshal(struct {
		Tools []toolJSON `json:"tools"`
	}{list})
}

// validName checks a tool name with guest.ValidName and, if it fails, says
// which part of the rule the name breaks.
func validName(name string) error {
	switch {
	case guest.ValidName(name):
		return nil
	case name == "" || len(name) > 64:
		return errors.New("tool name " + quote(name) + " must be 1 to 64 characters long")
	default:
		return errors.New("tool name " + quote(name) + " may contain only A-Z, a-z, 0-9, '_' and '-'")
	}
}

func objectSchema(s string) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, errors.New("is not valid JSON: " + err.Error())
	}
	if m == nil || m["type"] != "object" {
		return nil, errors.New(`must be a JSON Schema object with "type": "object"`)
	}
	return json.RawMessage(s), nil
}

func quote(s string) string { return guest.Quote(s) }
