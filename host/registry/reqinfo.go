package registry

import (
	"context"
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
)

// RequestInfo is what a guest is told about the client request it serves,
// beyond the request's params: the fields of its call context (ABI.md §2)
// that come from the client. The server sets it per request; every export
// the request reaches (call_tool, get_prompt, read_resource, complete) sees
// it in its context.
type RequestInfo struct {
	// ID is the JSON-RPC id of the client's request.
	ID any
	// Meta is the request's _meta, verbatim.
	Meta map[string]any
	// ClientCapabilities are the client's capabilities for this request,
	// as JSON.
	ClientCapabilities json.RawMessage
}

type requestInfoKey struct{}

// WithRequestInfo returns a context whose guest calls are told info.
func WithRequestInfo(ctx context.Context, info RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, info)
}

// withRequestInfo fills the context fields cc leaves empty from the
// request info in ctx.
func withRequestInfo(ctx context.Context, cc abi.Context) abi.Context {
	info, _ := ctx.Value(requestInfoKey{}).(RequestInfo)
	if cc.ID == nil {
		cc.ID = info.ID
	}
	if cc.Meta == nil {
		cc.Meta = info.Meta
	}
	if cc.ClientCapabilities == nil {
		cc.ClientCapabilities = info.ClientCapabilities
	}
	return cc
}
