package mcpwasm

import (
	"encoding/json"
	"errors"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// envelope is the call_tool input: {"request": CallToolParams, "context": Context}.
type envelope struct {
	Request struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      map[string]any  `json:"_meta"`
	} `json:"request"`
	Context Context `json:"context"`
}

// callTool runs one call_tool export. It returns the CallToolResult to
// output, or an error when the input is not a call_tool envelope (the export
// then fails with error_set, which the host reports as guest_error).
func callTool(input []byte) ([]byte, error) {
	guest.StartCall()
	env, err := decodeEnvelope(input)
	if err != nil {
		return nil, errors.New("mcpwasm: call_tool input is not a {request, context} object: " + err.Error())
	}
	if env.Request.Name == "" {
		return nil, errors.New("mcpwasm: call_tool input has no request.name")
	}
	t := findTool(env.Request.Name)
	if t == nil {
		return encodeResult(Error("unknown tool " + quote(env.Request.Name) + "; this plugin has: " + toolNames())), nil
	}
	args := env.Request.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	c := &Call{Name: t.name, Arguments: args, Meta: env.Request.Meta, Host: Host{Context: env.Context}}
	return encodeResult(run(t, c)), nil
}

// run calls the handler and turns its error, or a recovered panic, into an
// isError result.
func run(t *ToolDef, c *Call) *Result {
	r, err := guest.Handle("the tool "+quote(t.name), func() (*Result, error) { return t.handler(c) })
	if err != nil {
		return Error(err.Error())
	}
	if r == nil {
		r = &Result{}
	}
	return r
}
