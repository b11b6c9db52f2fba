// Package abi defines mcpwasm's plugin contract, ABI v1: the export names a
// plugin may provide, the host functions it may import, and the JSON
// envelopes that cross the boundary. ABI.md in this folder is the normative
// description; this package gives the host (and Go tooling) the same names as
// constants and types.
//
// A plugin is a core WebAssembly module following the Extism plugin ABI.
// Every export is a `() -> i32` function that reads its input and writes its
// output as UTF-8 JSON through the Extism kernel (extism:host/env).
package abi

import "encoding/json"

// Version is the ABI version this host implements.
const Version = 1

// Namespaces a plugin may import from. Anything else is rejected at load.
const (
	NamespaceKernel = "extism:host/env"        // Extism kernel: input, output, memory, config, vars, log.
	NamespaceUser   = "extism:host/user"       // mcpwasm host functions (notify_progress, ...).
	NamespaceWASI   = "wasi_snapshot_preview1" // WASI preview 1, sandboxed by the host.
)

// Export names.
const (
	// ExportABIVersion is optional: `() -> i32` returning the ABI version the
	// plugin was written against. A plugin without it is treated as v1.
	ExportABIVersion = "mcpwasm_abi_version"

	ExportListTools = "list_tools" // ListToolsResult
	ExportCallTool  = "call_tool"  // {"request": CallToolParams, "context": Context} -> CallToolResult

	// Legacy convention (mcp.run servlets, hyper-mcp v1).
	ExportDescribe = "describe" // ListToolsResult
	ExportCall     = "call"     // {"params": CallToolParams} -> CallToolResult

	ExportListResources         = "list_resources"
	ExportListResourceTemplates = "list_resource_templates"
	ExportReadResource          = "read_resource"
	ExportListPrompts           = "list_prompts"
	ExportGetPrompt             = "get_prompt"
	ExportComplete              = "complete"

	// ExportListSkills (ABI 1.1, optional) declares skills: each one's
	// path and files (ABI.md §5a). {"cursor"?} -> {"skills": [...], "nextCursor"?}
	ExportListSkills = "list_skills"
)

// Request is the input envelope of every v1 export except the list exports'
// legacy form: the MCP request params verbatim plus the host's context.
// The host encodes every export's input with it (package registry).
type Request struct {
	// Request is the MCP request's params (any value that encodes to
	// them: the host passes its own params structs).
	Request any     `json:"request"`
	Context Context `json:"context"`
}

// LegacyCallInput is the input of the legacy `call` export: the
// tools/call params, and no context.
type LegacyCallInput struct {
	Params any `json:"params"`
}

// Context is what the host tells a guest about the call it is serving.
type Context struct {
	// ID is the JSON-RPC id of the client's request (a number or a string),
	// omitted when the call did not come from a client request.
	ID any `json:"id,omitempty"`
	// Meta is the request's _meta object, verbatim.
	Meta map[string]any `json:"_meta,omitempty"`
	// Plugin is the plugin's configured name.
	Plugin string `json:"plugin"`
	// Tool is the tool name as the plugin declared it (without any prefix).
	Tool string `json:"tool,omitempty"`
	// DeadlineMs is the call's remaining time budget in milliseconds.
	DeadlineMs int64 `json:"deadline_ms,omitempty"`
	// Mounts lists the filesystem folders the guest may use in this call.
	Mounts []Mount `json:"mounts,omitempty"`
	// ClientCapabilities are the capabilities the client declared for this
	// request (per request in protocol 2026-07-28, per session before), as
	// an MCP ClientCapabilities object; omitted when no client is known.
	ClientCapabilities json.RawMessage `json:"client_capabilities,omitempty"`
}

// Mount is one folder visible to the guest, at the same absolute path as on
// the host.
type Mount struct {
	Path     string `json:"path"`
	ReadOnly bool   `json:"read_only"`
}

// ErrorCategory is the machine-readable class of a failed call, reported to
// clients in the result's _meta under MetaErrorKey.
type ErrorCategory string

// MetaErrorKey is the CallToolResult._meta key holding the ErrorCategory.
const MetaErrorKey = "mcpwasm/error"

// Error categories. ABI.md documents what produces each one.
const (
	ErrTimeout       ErrorCategory = "timeout"
	ErrCancelled     ErrorCategory = "cancelled"
	ErrOutOfMemory   ErrorCategory = "out_of_memory"
	ErrTrap          ErrorCategory = "trap"
	ErrStackOverflow ErrorCategory = "stack_overflow"
	ErrPanic         ErrorCategory = "panic"
	ErrExit          ErrorCategory = "exit"
	ErrGuest         ErrorCategory = "guest_error"
	ErrBadOutput     ErrorCategory = "bad_output"
	ErrOutputTooBig  ErrorCategory = "output_too_large"
	ErrInputTooBig   ErrorCategory = "input_too_large"
	ErrInvalidArgs   ErrorCategory = "invalid_arguments"
	ErrBusy          ErrorCategory = "busy"
	ErrHost          ErrorCategory = "host_error"
	// ErrWorkerCrashed: the worker process running an isolated plugin
	// died (signal, abort, out-of-memory kill, exit) during the call.
	ErrWorkerCrashed ErrorCategory = "worker_crashed"
)

// HostFunctionRequestInput is the host function that asks the client for
// several things at once, each under a key the guest chooses (ABI.md §6).
const HostFunctionRequestInput = "request_input"

// HostError is a host function's failure as the guest reads it:
// {"error": {"code"?, "message", "data"?}}.
type HostError struct {
	// Code is a JSON-RPC error code when the failure has one, such as
	// CodeMissingCapability.
	Code int64 `json:"code,omitempty"`
	// Message says what went wrong.
	Message string `json:"message"`
	// Data carries details, such as {"requiredCapabilities": {...}}.
	Data json.RawMessage `json:"data,omitempty"`
}

// Error returns the message the host gave.
func (e *HostError) Error() string { return e.Message }

// CodeMissingCapability is the code of a host function's error when the
// client did not declare the capability the request needs (MCP's
// MissingRequiredClientCapabilityError).
const CodeMissingCapability = -32021
