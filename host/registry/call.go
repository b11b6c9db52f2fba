package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallRequest is a tools/call as the registry sees it.
type CallRequest struct {
	// Arguments is the client's arguments object, verbatim (may be empty).
	Arguments json.RawMessage
	// Invocation is the rest: the request's id and _meta (which the guest
	// also gets as params._meta), its mounts, callbacks and record.
	Invocation
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      map[string]any  `json:"_meta,omitempty"`
}

// Call validates the arguments, runs the tool in a fresh sandbox and returns
// its result. It never returns a Go error: every failure, the guest's or the
// arguments', is a result with IsError set and a category in _meta.
func (t *Tool) Call(ctx context.Context, req CallRequest) *mcp.CallToolResult {
	args := req.Arguments
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	if err := t.validate(args); err != nil {
		return t.errorResult(&plugin.Error{Category: abi.ErrInvalidArgs,
			Message: fmt.Sprintf("invalid arguments: %v", err)})
	}
	params := callParams{Name: t.Declared, Arguments: args, Meta: req.Meta}
	var input []byte
	var err error
	if t.legacy {
		input, err = json.Marshal(abi.LegacyCallInput{Params: params})
	} else {
		cc := req.RequestInfo.context(abi.Context{Plugin: t.Plugin.Name(), Tool: t.Declared, Mounts: req.Mounts})
		cc.DeadlineMs = t.Plugin.Limit(req.options()).Milliseconds()
		if d, ok := ctx.Deadline(); ok {
			if left := time.Until(d).Milliseconds(); left < cc.DeadlineMs {
				cc.DeadlineMs = left
			}
		}
		input, err = json.Marshal(abi.Request{Request: params, Context: cc})
	}
	if err != nil {
		return t.errorResult(&plugin.Error{Category: abi.ErrHost, Message: "could not encode the call: " + err.Error()})
	}
	export := abi.ExportCallTool
	if t.legacy {
		export = abi.ExportCall
	}
	out, cerr := t.Plugin.InvokeWith(ctx, export, input, req.options())
	if cerr != nil {
		return t.errorResult(cerr)
	}
	res, perr := parseResult(out)
	if perr != nil {
		return t.errorResult(perr)
	}
	return res
}

func (t *Tool) validate(args json.RawMessage) error {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return fmt.Errorf("arguments are not JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("arguments must be a JSON object")
	}
	if err := t.schema.Validate(v); err != nil {
		return errors.New(argumentError(t.schema.Schema(), v, err))
	}
	return nil
}

// errorResult is the isError result for a failed call: a text the model can
// act on, and the category and details in _meta.
func (t *Tool) errorResult(e *plugin.Error) *mcp.CallToolResult {
	meta := mcp.Meta{abi.MetaErrorKey: string(e.Category)}
	for k, v := range e.Details {
		meta[k] = v
	}
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: %s", t.Def.Name, e.Message)}},
		Meta:    meta,
	}
}

// HostError is the isError result for a failure on the host's side before
// the guest ran (category host_error).
func (t *Tool) HostError(msg string) *mcp.CallToolResult {
	return t.errorResult(&plugin.Error{Category: abi.ErrHost, Message: msg})
}
