package registry

import (
	"encoding/json"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// RequestInfo is what a guest is told about the client request it serves,
// beyond the request's params: the fields of its call context (ABI.md §2)
// that come from the client. Every export a request reaches (call_tool,
// get_prompt, read_resource, complete) sees it in its context.
type RequestInfo struct {
	// ID is the JSON-RPC id of the client's request.
	ID any
	// Meta is the request's _meta, verbatim.
	Meta map[string]any
	// ClientCapabilities are the client's capabilities for this request,
	// as JSON.
	ClientCapabilities json.RawMessage
}

// Invocation is what one client request brings to the guest call it makes,
// beside its params: what the guest is told of the request, the folders it
// sees, where it reports, and the record the sandbox fills. The zero value
// is a call with none of them (the command line's call, list reads).
type Invocation struct {
	RequestInfo
	// Mounts are the folders the guest may use in this call (tool calls
	// and resource reads).
	Mounts []abi.Mount
	// Callbacks receives the guest's notifications and client requests.
	Callbacks plugin.Callbacks
	// Record, if set, is filled with what happened in the sandbox.
	Record *plugin.CallRecord
	// Timeout, if set, replaces the plugin's time limit (a task's).
	Timeout time.Duration
}

// options are the sandbox's call options for inv.
func (inv *Invocation) options() plugin.CallOptions {
	return plugin.CallOptions{Mounts: inv.Mounts, Callbacks: inv.Callbacks, Record: inv.Record, Timeout: inv.Timeout}
}

// context fills the context fields cc leaves empty from the request info.
func (info RequestInfo) context(cc abi.Context) abi.Context {
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
