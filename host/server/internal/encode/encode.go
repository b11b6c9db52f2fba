// Package encode makes every answer the server gives one go-sdk can write
// (a go-sdk v1.8.0 workaround: RATIONALE.md lists it).
package encode

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/mcpwasm/mcpwasm/abi"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An answer go-sdk cannot encode does worse than fail: an error whose Data
// is not JSON fails the transport's write, and go-sdk v1.8.0 then ends the
// session (on stdio, the process); a result that does not marshal is logged
// by go-sdk and never answered, so the client waits forever. Every answer
// therefore passes Answer on its way out (the codes middleware), and the
// stream transports keep a last line of defence (codeConn.Write).

// Answer returns res and err as they are when both can be written, and
// otherwise an answer that can: an error whose Data is not valid JSON gets
// its Data rebuilt (resources/read) or dropped, and a result that does not
// marshal becomes an isError bad_output result (tools/call) or an
// internal error naming why. why, when not empty, says what was replaced.
func Answer(method string, req mcp.Request, res mcp.Result, err error) (_ mcp.Result, _ error, why string) {
	if err != nil {
		var we *jsonrpc.Error
		if errors.As(err, &we) && len(we.Data) > 0 && !json.Valid(we.Data) {
			fixed := &jsonrpc.Error{Code: we.Code, Message: we.Message}
			if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil && we.Code == mcp.CodeResourceNotFound {
				fixed.Data = ResourceNotFound(r.Params.URI).(*jsonrpc.Error).Data
			}
			return nil, fixed, "error data that is not JSON: " + string(we.Data)
		}
		return res, err, ""
	}
	if res == nil {
		return res, nil, ""
	}
	if Surely(res) {
		return res, nil, ""
	}
	if _, merr := json.Marshal(res); merr != nil {
		msg := fmt.Sprintf("the %s answer could not be encoded as JSON: %v", method, merr)
		if _, tool := res.(*mcp.CallToolResult); tool {
			// A tool's answer is the guest's: its failure is a result the
			// model sees, as every other guest failure is.
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}},
				Meta: mcp.Meta{abi.MetaErrorKey: string(abi.ErrBadOutput)}}, nil, msg
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}, msg
	}
	return res, nil, ""
}

// Surely reports, without encoding it, that res is a tool result
// json.Marshal encodes: text content, and structuredContent and _meta made
// of JSON values (what a guest's output decodes to; structuredContent may
// be the guest's bytes, checked with json.Valid). Every tool answer passes
// Answer, and encoding it there doubled the cost of the answer; a false
// here only means res is encoded to find out.
func Surely(res mcp.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil || r.InputRequests != nil || !jsonValue(r.StructuredContent) || !jsonValue(map[string]any(r.Meta)) {
		return false
	}
	for _, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t == nil || t.Annotations != nil || !jsonValue(map[string]any(t.Meta)) {
			return false
		}
	}
	return true
}

// jsonValue reports whether v is made only of what decoding JSON into an
// any yields (finite numbers), or of valid json.RawMessage.
func jsonValue(v any) bool {
	switch v := v.(type) {
	case nil, string, bool:
		return true
	case float64:
		return !math.IsInf(v, 0) && !math.IsNaN(v)
	case json.RawMessage:
		return json.Valid(v)
	case map[string]any:
		for _, e := range v {
			if !jsonValue(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !jsonValue(e) {
				return false
			}
		}
		return true
	}
	return false
}

// ResourceNotFound is mcp.ResourceNotFoundError with its data encoded by
// encoding/json: go-sdk builds the data with %q, which writes a DEL or an
// invalid UTF-8 byte in the URI as Go escapes (\x7f), not JSON.
func ResourceNotFound(uri string) error {
	data, _ := json.Marshal(struct {
		URI string `json:"uri"`
	}{uri})
	return &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: "Resource not found", Data: data}
}
