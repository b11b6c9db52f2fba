//go:build !wasip1

package guest

import "encoding/json"

// Off wasip1 there is no Extism kernel: this file stands in for it so that
// handlers can be tested with plain `go test`. Nothing here is in a plugin.

// Note is one host function call the guest made: Function is its name
// ("notify_progress", "notify_tool_list_changed", ...) and Payload its JSON
// argument, nil for the functions that take none.
type Note struct {
	Function string
	Payload  json.RawMessage
}

// Test is the stand-in host's state.
var Test struct {
	// Err is the error message set with error_set and not cleared.
	Err string
	// Config is what config_get answers.
	Config map[string]string
	// Notes are the notifications sent since [BeginTest].
	Notes []Note
	// Answer answers create_message, create_elicitation and list_roots;
	// without it they answer an error, as a client lacking the capability.
	Answer func(fn string, params json.RawMessage) json.RawMessage
}

// BeginTest starts a test call: it clears the error message and the notes.
func BeginTest() {
	Test.Err, Test.Notes = "", nil
}

// SetError sets the call's error message (error_set).
func SetError(msg string) { Test.Err = msg }

// ClearError clears the error message again.
func ClearError() { Test.Err = "" }

// Config reads a value of the plugin's config table (config_get).
func Config(key string) (string, bool) {
	v, ok := Test.Config[key]
	return v, ok
}

func note(fn string, payload []byte) {
	Test.Notes = append(Test.Notes, Note{fn, json.RawMessage(payload)})
}

// NotifyProgress calls notify_progress with a JSON payload.
func NotifyProgress(payload []byte) { note("notify_progress", payload) }

// NotifyLoggingMessage calls notify_logging_message with a JSON payload.
func NotifyLoggingMessage(payload []byte) { note("notify_logging_message", payload) }

// NotifyResourceUpdated calls notify_resource_updated with a JSON payload.
func NotifyResourceUpdated(payload []byte) { note("notify_resource_updated", payload) }

// NotifyToolListChanged calls notify_tool_list_changed.
func NotifyToolListChanged() { note("notify_tool_list_changed", nil) }

// NotifyResourceListChanged calls notify_resource_list_changed.
func NotifyResourceListChanged() { note("notify_resource_list_changed", nil) }

// NotifyPromptListChanged calls notify_prompt_list_changed.
func NotifyPromptListChanged() { note("notify_prompt_list_changed", nil) }

// NotifyURLElicitationCompleted calls notify_url_elicitation_completed with
// a JSON payload.
func NotifyURLElicitationCompleted(payload []byte) {
	note("notify_url_elicitation_completed", payload)
}

// CreateMessage calls create_message with a JSON payload and returns the
// host's JSON answer.
func CreateMessage(payload []byte) []byte { return ask("create_message", payload) }

// CreateElicitation calls create_elicitation with a JSON payload and returns
// the host's JSON answer.
func CreateElicitation(payload []byte) []byte { return ask("create_elicitation", payload) }

// ListRoots calls list_roots and returns the host's JSON answer.
func ListRoots() []byte { return ask("list_roots", nil) }

func ask(fn string, payload []byte) []byte {
	if Test.Answer == nil {
		return ErrorJSON("the client does not support " + fn)
	}
	return Test.Answer(fn, payload)
}
