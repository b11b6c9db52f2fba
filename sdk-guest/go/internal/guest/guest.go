// Package guest is what the mcpwasm SDK's packages share: the Extism kernel
// (or, off wasip1, an in-process stand-in for it), the host functions, the
// way an export runs a handler, and the load-time checks of the optional
// feature packages (resources, prompts, completion).
//
// Each host function has its own Go function here, so a plugin imports only
// the host functions it calls: the linker drops the rest.
package guest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

// canRecover is false under TinyGo, whose WebAssembly targets cannot
// recover() a panic: the module traps instead.
const canRecover = runtime.Compiler != "tinygo"

// started is when the current export call began. The host runs every call in
// a fresh instance, so one variable is enough.
var started time.Time

// StartCall records that a call begins now; see [Started].
func StartCall() { started = time.Now() }

// Started is when the current call began, the time its deadline_ms counts
// from.
func Started() time.Time { return started }

// Guard runs f, a handler call; what names it in messages (`the tool "x"`).
// Under standard Go a panic in f is recovered: its value and stack go to
// stderr (the server's debug log) and Guard returns an error reading
// "internal error: <what> panicked: <value>". Under TinyGo, which cannot
// recover on WebAssembly, Guard sets an error message with error_set before
// f runs and clears it when f returns; if f panics the module traps and the
// host reports that message. Guard returns nil when f returns normally.
func Guard(what string, f func()) (err error) {
	if canRecover {
		defer func() {
			if p := recover(); p != nil {
				fmt.Fprintf(os.Stderr, "mcpwasm: recovered a panic in %s: %v\n%s", what, p, debug.Stack())
				err = fmt.Errorf("internal error: %s panicked: %v", what, p)
			}
		}()
	} else {
		SetError(what + " panicked or ran out of memory (TinyGo cannot recover; the panic message is in the server's debug log, guest stdout)")
		defer ClearError() // runs only when f returns
	}
	f()
	return nil
}

// Handle runs h, a handler call, under [Guard] (what names it): h's result
// and error, or the error of a recovered panic.
func Handle[R any](what string, h func() (R, error)) (R, error) {
	var res R
	var err error
	if perr := Guard(what, func() { res, err = h() }); perr != nil {
		var zero R
		return zero, perr
	}
	return res, err
}

// Decode decodes input, an export's {"request": R, "context": C} envelope.
// Its error says that export's input is not a {request, context} object
// (shape adds what else it must be, as " with string arguments").
func Decode[R, C any](export, shape string, input []byte) (R, C, error) {
	var env struct {
		Request R `json:"request"`
		Context C `json:"context"`
	}
	if err := json.Unmarshal(input, &env); err != nil {
		return env.Request, env.Context, errors.New("mcpwasm: " + export + " input is not a {request, context} object" + shape + ": " + err.Error())
	}
	return env.Request, env.Context, nil
}

// Marshal is json.Marshal without HTML escaping: "<" stays "<" in the text a
// model reads, instead of becoming "\u003c".
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Quote is s as a JSON string, for messages.
func Quote(s string) string {
	b, _ := Marshal(s)
	return string(b)
}

// ValidName reports whether s is a valid tool or prompt name: 1 to 64 of
// A-Z, a-z, 0-9, '_' and '-', the host's rule.
func ValidName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Annotations checks the MCP annotations declared for what (`tool "x"`,
// `resource "a://b"`): nil for none (""), else s, which must be a JSON
// object.
func Annotations(what, s string) (json.RawMessage, error) {
	if s == "" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, errors.New(what + ": annotations must be a JSON object")
	}
	return json.RawMessage(s), nil
}

// ErrorJSON is the object a request host function answers when the request
// could not be made.
func ErrorJSON(msg string) []byte {
	b, _ := Marshal(map[string]map[string]string{"error": {"message": msg}})
	return b
}
