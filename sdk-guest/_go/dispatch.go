package mcpwasm

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

// canRecover is false under TinyGo, whose WebAssembly targets cannot
// recover() a panic: the module traps instead.
const canRecover = runtime.Compiler != "tinygo"

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
	var env envelope
	if err := json.Unmarshal(input, &env); err != nil {
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
	c := &Call{Name: t.name, Arguments: args, Meta: env.Request.Meta, Context: env.Context, start: time.Now()}
	return encodeResult(run(t, c)), nil
}

// run calls the handler and turns its error, or a recovered panic, into an
// isError result.
func run(t *ToolDef, c *Call) (res *Result) {
	if canRecover {
		defer func() {
			if p := recover(); p != nil {
				// A stack for the server's debug log; the model gets the value.
				fmt.Fprintf(os.Stderr, "mcpwasm: recovered a panic in tool %q: %v\n%s", t.name, p, debug.Stack())
				res = Error(fmt.Sprintf("internal error: the tool %q panicked: %v", t.name, p))
			}
		}()
	} else {
		// If the handler panics, the module traps before anything else
		// runs; the host then reports this message with category panic.
		hostSetError(fmt.Sprintf("the tool %q panicked or ran out of memory (TinyGo cannot recover; the panic message is in the server's debug log, guest stdout)", t.name))
		defer hostClearError() // runs only when the handler returns
	}
	r, err := t.handler(c)
	if err != nil {
		return Error(err.Error())
	}
	if r == nil {
		r = &Result{}
	}
	return r
}
