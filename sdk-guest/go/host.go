package mcpwasm

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// Host is what every handler (tools, resource reads, prompts, completions)
// gets from the host: the call's [Context] and the host functions of ABI.md
// §6 as methods. Handler request types embed it, so a handler writes
// c.Progress(...), r.Log(...) and so on.
//
// Only the host functions a plugin calls become imports of its module.
type Host struct {
	// Context is what the host says about this call.
	Context Context
}

// Deadline is when the host will stop this call, and false if the host gave
// no deadline.
func (h *Host) Deadline() (time.Time, bool) {
	if h.Context.DeadlineMs <= 0 {
		return time.Time{}, false
	}
	return guest.Started().Add(time.Duration(h.Context.DeadlineMs) * time.Millisecond), true
}

// Progress reports progress to the client (notifications/progress). total
// and message are optional: pass 0 and "" to leave them out. It does nothing
// if the client asked for no progress.
func (h *Host) Progress(progress, total float64, message string) {
	notify(guest.NotifyProgress, struct {
		Progress float64 `json:"progress"`
		Total    float64 `json:"total,omitempty"`
		Message  string  `json:"message,omitempty"`
	}{progress, total, message})
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
func (h *Host) Log(level Level, data any) { h.LogAs(level, "", data) }

// LogAs is Log with a logger name.
func (h *Host) LogAs(level Level, logger string, data any) {
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
		guest.NotifyLoggingMessage(b)
	}
}

// NotifyResourceUpdated tells the clients subscribed to uri that it changed
// (notifications/resources/updated).
func (h *Host) NotifyResourceUpdated(uri string) {
	notify(guest.NotifyResourceUpdated, struct {
		URI string `json:"uri"`
	}{uri})
}

// NotifyToolListChanged says the plugin's tools changed: after this call the
// host reads the list again and tells clients
// (notifications/tools/list_changed). The host reads it from a fresh
// instance, so the new list differs only if init registers tools
// conditionally (on Config, for example).
func (h *Host) NotifyToolListChanged() { guest.NotifyToolListChanged() }

// NotifyResourceListChanged is NotifyToolListChanged for resources and
// resource templates.
func (h *Host) NotifyResourceListChanged() { guest.NotifyResourceListChanged() }

// NotifyPromptListChanged is NotifyToolListChanged for prompts.
func (h *Host) NotifyPromptListChanged() { guest.NotifyPromptListChanged() }

// NotifyURLElicitationCompleted tells the client that the URL-mode
// elicitation with this elicitationId, which the plugin started with
// [Host.Elicit], is complete (notifications/elicitation/complete). It does
// nothing in stateless HTTP.
func (h *Host) NotifyURLElicitationCompleted(id string) {
	notify(guest.NotifyURLElicitationCompleted, struct {
		ElicitationID string `json:"elicitationId"`
	}{id})
}

// notify sends v, JSON-encoded, with the notification host function send;
// a v that cannot be encoded sends nothing.
func notify(send func(payload []byte), v any) {
	if b, err := json.Marshal(v); err == nil {
		send(b)
	}
}

// HostError is the host's answer when it could not make a request of the
// client: the client lacks the capability, the server is stateless, or the
// call's deadline passed.
type HostError struct{ Message string }

// Error returns the host's message.
func (e *HostError) Error() string { return e.Message }

// CreateMessage asks the client's model for a completion (MCP sampling).
// params is a CreateMessageRequest's params; the CreateMessageResult is
// decoded into result. A *HostError says why the request could not be made.
func (h *Host) CreateMessage(params, result any) error {
	return request("create_message", guest.CreateMessage, params, result)
}

// Elicit asks the user for input (MCP elicitation). params is an
// ElicitRequest's params; the ElicitResult is decoded into result.
func (h *Host) Elicit(params, result any) error {
	return request("create_elicitation", guest.CreateElicitation, params, result)
}

// Root is one of the client's roots.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ListRoots asks the client for its roots.
func (h *Host) ListRoots() ([]Root, error) {
	var r struct {
		Roots []Root `json:"roots"`
	}
	err := decodeAnswer("list_roots", guest.ListRoots(), &r)
	return r.Roots, err
}

// request makes the request host function fn (ask) with params, JSON-encoded,
// and decodes its answer into result.
func request(fn string, ask func(payload []byte) []byte, params, result any) error {
	in, err := json.Marshal(params)
	if err != nil {
		return errors.New(fn + ": cannot encode the request: " + err.Error())
	}
	return decodeAnswer(fn, ask(in), result)
}

// decodeAnswer decodes a request host function's answer into result, or
// returns the *HostError it carries.
func decodeAnswer(fn string, out []byte, result any) error {
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
func Config(key string) (string, bool) { return guest.Config(key) }
