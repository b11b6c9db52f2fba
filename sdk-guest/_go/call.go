package mcpwasm

import (
	"encoding/json"
	"errors"
	"time"
)

// Call is one tools/call request, as the plugin's handler sees it.
type Call struct {
	// Name is the tool's name as the plugin declared it.
	Name string
	// Arguments is the client's arguments object, verbatim ("{}" if absent).
	// The host has already validated it against the tool's inputSchema.
	Arguments json.RawMessage
	// Meta is the request's _meta object, if any.
	Meta map[string]any
	// Context is what the host says about this call.
	Context Context

	start time.Time
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
	// Tool is the tool's declared name.
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

// Deadline is when the host will stop this call, and false if the host gave
// no deadline.
func (c *Call) Deadline() (time.Time, bool) {
	if c.Context.DeadlineMs <= 0 {
		return time.Time{}, false
	}
	return c.start.Add(time.Duration(c.Context.DeadlineMs) * time.Millisecond), true
}

// Progress reports progress to the client (notifications/progress). total
// and message are optional: pass 0 and "" to leave them out. It does nothing
// if the client asked for no progress.
func (c *Call) Progress(progress, total float64, message string) {
	b, err := json.Marshal(struct {
		Progress float64 `json:"progress"`
		Total    float64 `json:"total,omitempty"`
		Message  string  `json:"message,omitempty"`
	}{progress, total, message})
	if err == nil {
		hostNotify(notifyProgress, b)
	}
}

// Level is an MCP logging level.
type Level string

// The MCP logging levels, least severe first.
const (
	LevelDebug     Level = "debug"
	LevelInfo      Level = "info"
	LevelNotice    Level = "notice"
	LevelWarning   Level = "warning"
	LevelError     Level = "error"
	LevelCritical  Level = "critical"
	LevelAlert     Level = "alert"
	LevelEmergency Level = "emergency"
)

// Log sends a log message to the client (notifications/message) if the
// client's logging level lets it through. data is any JSON-encodable value,
// usually a string. The host passes at most 100 per call.
func (c *Call) Log(level Level, data any) { c.LogAs(level, "", data) }

// LogAs is Log with a logger name.
func (c *Call) LogAs(level Level, logger string, data any) {
	type msg struct {
		Level  Level  `json:"level"`
		Logger string `json:"logger,omitempty"`
		Data   any    `json:"data"`
	}
	b, err := json.Marshal(msg{level, logger, data})
	if err != nil {
		b, err = json.Marshal(msg{level, logger, "unencodable log data: " + err.Error()})
	}
	if err == nil {
		hostNotify(notifyLog, b)
	}
}

// HostError is the host's answer when it could not make a request of the
// client: the client lacks the capability, the server is stateless, or the
// call's deadline passed.
type HostError struct{ Message string }

func (e *HostError) Error() string { return e.Message }

// CreateMessage asks the client's model for a completion (MCP sampling).
// params is a CreateMessageRequest's params; the CreateMessageResult is
// decoded into result. A *HostError says why the request could not be made.
func (c *Call) CreateMessage(params, result any) error {
	return hostRequest(requestSampling, params, result)
}

// Elicit asks the user for input (MCP elicitation). params is an
// ElicitRequest's params; the ElicitResult is decoded into result.
func (c *Call) Elicit(params, result any) error {
	return hostRequest(requestElicit, params, result)
}

// Root is one of the client's roots.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ListRoots asks the client for its roots.
func (c *Call) ListRoots() ([]Root, error) {
	var r struct {
		Roots []Root `json:"roots"`
	}
	err := hostRequest(requestRoots, nil, &r)
	return r.Roots, err
}

// Host functions this package uses (extism:host/user).
const (
	notifyProgress  = "notify_progress"
	notifyLog       = "notify_logging_message"
	requestSampling = "create_message"
	requestElicit   = "create_elicitation"
	requestRoots    = "list_roots"
)

func hostRequest(fn string, params, result any) error {
	var in []byte
	if fn != requestRoots {
		var err error
		if in, err = json.Marshal(params); err != nil {
			return errors.New(fn + ": cannot encode the request: " + err.Error())
		}
	}
	out := hostCall(fn, in)
	var e struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &e); err != nil {
		return errors.New(fn + ": the host answered invalid JSON: " + err.Error())
	}
	if e.Error != nil {
		return &HostError{Message: e.Error.Message}
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(out, result); err != nil {
		return errors.New(fn + ": cannot decode the answer: " + err.Error())
	}
	return nil
}

// Config returns a value from the plugin's config table in the operator's
// mcpwasm configuration (Extism config_get), and false if it is not set.
func Config(key string) (string, bool) { return hostConfig(key) }
