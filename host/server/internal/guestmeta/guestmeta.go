// Package guestmeta decides what _meta crosses the guest boundary, each
// way: what a guest is told of a request's _meta (In), and what a guest may
// put in its results (Result, Prompt, Resource: MCP's reserved keys and the
// server's own fields are not the guest's to set).
package guestmeta

import (
	"strings"

	"github.com/mcpwasm/mcpwasm/host/traceparent"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// In is a request's _meta as a guest sees it (ABI.md §2,
// context._meta and the request's own _meta): verbatim, except that a
// traceparent that is not a well-formed W3C traceparent is left out. The
// guest may log it, or send it on in its HTTP requests; only a value that
// package traceparent accepts (the one on the call's log lines and audit
// record) reaches it. The client's map is never modified.
func In(meta mcp.Meta) mcp.Meta {
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

// Result keeps what a guest may say in a tool result: content,
// structured content, isError and its own _meta keys. inputRequests,
// requestState and resultType are the server's to set (go-sdk would send a
// guest's inputRequests to the client as the server's own requests), and
// _meta keys under a reserved prefix are MCP's.
func Result(res *mcp.CallToolResult) *mcp.CallToolResult {
	return &mcp.CallToolResult{Meta: Meta(res.Meta), Content: res.Content,
		StructuredContent: res.StructuredContent, IsError: res.IsError}
}

// Prompt and Resource do the same for prompts/get and
// resources/read results.
func Prompt(res *mcp.GetPromptResult) *mcp.GetPromptResult {
	return &mcp.GetPromptResult{Meta: Meta(res.Meta), Description: res.Description, Messages: res.Messages}
}

// Resource keeps what a guest may say in a resources/read result.
func Resource(res *mcp.ReadResourceResult) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Meta: Meta(res.Meta), Cacheable: res.Cacheable, Contents: res.Contents}
}

// Meta is m without the keys under a prefix reserved for MCP (Reserved).
func Meta(m mcp.Meta) mcp.Meta {
	var out mcp.Meta
	for k, v := range m {
		if !Reserved(k) {
			if out == nil {
				out = mcp.Meta{}
			}
			out[k] = v
		}
	}
	return out
}

// Reserved reports whether a _meta key's prefix may be reserved for
// MCP. The specification reserves any prefix of zero or more labels, then
// "modelcontextprotocol" or "mcp", then any label (modelcontextprotocol.io/,
// mcp.dev/, api.modelcontextprotocol.org/, tools.mcp.com/), and uses
// reverse-DNS keys itself (io.modelcontextprotocol/): a prefix with either
// label anywhere is treated as reserved, which strips a little more from
// guest output than the letter of the rule, never less.
func Reserved(k string) bool {
	prefix, _, ok := strings.Cut(k, "/")
	if !ok {
		return false
	}
	labels := strings.Split(prefix, ".")
	for _, l := range labels {
		if strings.EqualFold(l, "modelcontextprotocol") || strings.EqualFold(l, "mcp") {
			return true
		}
	}
	return false
}
