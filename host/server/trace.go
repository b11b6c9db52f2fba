package server

import (
	"github.com/mcpwasm/mcpwasm/host/traceparent"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// guestMetaIn is a request's _meta as a guest sees it (ABI.md §2,
// context._meta and the request's own _meta): verbatim, except that a
// traceparent that is not a well-formed W3C traceparent is left out. The
// guest may log it, or send it on in its HTTP requests; only a value that
// package traceparent accepts (the one on the call's log lines and audit
// record) reaches it. The client's map is never modified.
func guestMetaIn(meta mcp.Meta) mcp.Meta {
	v, ok := meta[traceparent.MetaKey]
	if !ok {
		return meta
	}
	if s, _ := v.(string); traceparent.Valid(s) {
		return meta
	}
	out := make(mcp.Meta, len(meta)-1)
	for k, v := range meta {
		if k != traceparent.MetaKey {
			out[k] = v
		}
	}
	return out
}
