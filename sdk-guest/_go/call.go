package mcpwasm

import (
	"encoding/json"
	"errors"
)

// Call is one tools/call request, as the plugin's handler sees it. The
// embedded [Host] carries the call's context and the host functions
// (progress, logging, sampling, ...).
type Call struct {
	// Name is the tool's name as the plugin declared it.
	Name string
	// Arguments is the client's arguments object, verbatim ("{}" if absent).
	// The host has already validated it against the tool's inputSchema.
	Arguments json.RawMessage
	// Meta is the request's _meta object, if any.
	Meta map[string]any

	Host
}

// Context is the host's description of the call (ABI.md §2). Fields a later
// ABI adds are ignored.
type Context struct {
	// ID is the client request's JSON-RPC id (a number or a string), if any.
	ID json.RawMessage `json:"id,omitempty"`
	// Meta is the request's _meta, verbatim (it carries the progressToken).
	Meta map[string]any `json:"_meta,omitempty"`
	// Plugin is the plugin's configured name.
	Plugin string `json:"plugin"`
	// Tool is the tool's declared name (empty outside tool calls).
	Tool string `json:"tool,omitempty"`
	// DeadlineMs is the time this call had left when it started.
	DeadlineMs int64 `json:"deadline_ms,omitempty"`
	// Mounts are the host folders this call may use, at the same absolute
	// paths as on the host.
	Mounts []Mount `json:"mounts,omitempty"`
}

// Mount is one folder granted to the plugin.
type Mount struct {
	Path     string `json:"path"`
	ReadOnly bool   `json:"read_only"`
}

// Bind decodes the call's arguments into v, usually a pointer to a struct
// with json tags. Absent arguments decode as an empty object. The error, if
// any, is meant to be returned from the handler as it is.
func (c *Call) Bind(v any) error {
	args := c.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, v); err != nil {
		return errors.New("invalid arguments: " + err.Error())
	}
	return nil
}
