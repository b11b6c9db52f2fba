package plugin

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/host/internal/bytesize"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/tetratelabs/wazero/sys"
)

// Error is a failed guest call. Every failure a guest can cause is an *Error
// with a Category; the server turns it into an isError tool result.
type Error struct {
	Category abi.ErrorCategory
	// Message is a short sentence a model can act on.
	Message string
	// Details are extra machine-readable fields (limit_ms, exit_code, ...).
	Details map[string]any
	// Err is the underlying runtime error, if any, for logs.
	Err error
}

// Error returns the message the model sees.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying runtime error.
func (e *Error) Unwrap() error { return e.Err }

func newError(cat abi.ErrorCategory, err error, format string, args ...any) *Error {
	return &Error{Category: cat, Message: fmt.Sprintf(format, args...), Err: err}
}

func (e *Error) with(k string, v any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[k] = v
	return e
}

// Exit codes wazero uses when it closes a module because its context ended.
const (
	exitDeadline = sys.ExitCodeDeadlineExceeded
	exitCanceled = sys.ExitCodeContextCanceled
)

var (
	goPanic   = regexp.MustCompile(`(?m)^panic: .*$`)
	rustPanic = regexp.MustCompile(`(?m)^.*panicked at .*$`)
	oomText   = regexp.MustCompile(`(?i)out of memory|memory allocation of \d+ bytes failed`)
)

// outcome is everything observed about one finished guest call.
type outcome struct {
	rc        uint32
	err       error
	ctxErr    error  // the call context's error when the call returned
	cancelled bool   // the caller (client) cancelled, as opposed to our deadline
	exited    bool   // the module closed itself during the call (proc_exit)
	exitCode  uint32 // valid when exited
	memAtMax  bool   // a linear memory reached its limit during the call
	stderr    string
	guestMsg  string // the guest's error_set message, if it set one and then trapped
	timeoutMs int64
	memLimit  uint64
	cpu       time.Duration // how long the guest held a CPU slot
	memPeak   uint64        // the peak of its linear memories together
}

// hostFailure is a failure on the host's side before the guest ran.
type hostFailure struct{ error }

// classify maps an outcome to an *Error, or nil when the call succeeded.
// Order matters: the context's end explains a closed module, a panic
// explains a trap, and memory exhaustion explains an abort.
func classify(o outcome) *Error {
	var hf hostFailure
	if errors.As(o.err, &hf) {
		return newError(abi.ErrHost, hf.error, "%v", hf.error)
	}
	var exitErr *sys.ExitError
	isExit := errors.As(o.err, &exitErr)
	switch {
	case o.cancelled && (o.err != nil || o.ctxErr != nil):
		return newError(abi.ErrCancelled, o.err, "the call was cancelled by the client")
	case errors.Is(o.ctxErr, context.DeadlineExceeded) || errors.Is(o.err, context.DeadlineExceeded) ||
		(isExit && exitErr.ExitCode() == exitDeadline):
		return newError(abi.ErrTimeout, o.err, "the tool ran past its time limit of %dms and was stopped", o.timeoutMs).
			with("limit_ms", o.timeoutMs)
	case errors.Is(o.ctxErr, context.Canceled) || (isExit && exitErr.ExitCode() == exitCanceled):
		return newError(abi.ErrCancelled, o.err, "the call was cancelled")
	}
	if m := panicLine(o.stderr); m != "" && (o.err != nil || o.rc != 0 || o.exited) {
		return newError(abi.ErrPanic, o.err, "the tool panicked: %s", m)
	}
	if o.guestMsg != "" && o.err != nil && strings.HasPrefix(o.err.Error(), "wasm error: unreachable") {
		// The guest said why, then aborted: a panic hook or an abort().
		return newError(abi.ErrPanic, o.err, "the tool aborted: %s", truncate(o.guestMsg, 2000))
	}
	if o.exited || isExit {
		code := o.exitCode
		if isExit {
			code = exitErr.ExitCode()
		}
		return newError(abi.ErrExit, o.err, "the tool exited (proc_exit %d) instead of returning a result", code).
			with("exit_code", code)
	}
	if o.err != nil {
		msg := o.err.Error()
		switch {
		case strings.Contains(msg, "stack overflow"):
			return newError(abi.ErrStackOverflow, o.err, "the tool overflowed its stack (recursion too deep)")
		case strings.HasPrefix(msg, "wasm error: "):
			if o.memAtMax || oomText.MatchString(o.stderr) {
				return newError(abi.ErrOutOfMemory, o.err, "the tool ran out of memory (limit %s)", humanBytes(o.memLimit)).
					with("limit_bytes", o.memLimit)
			}
			first, _, _ := strings.Cut(strings.TrimPrefix(msg, "wasm error: "), "\n")
			return newError(abi.ErrTrap, o.err, "the tool crashed: %s", first)
		case strings.Contains(msg, "(recovered by wazero)"):
			// A kernel or host function refused what the guest passed it
			// (an offset outside kernel memory, typically after a failed
			// allocation): the guest's fault, reported as a trap.
			first, _, _ := strings.Cut(strings.TrimSuffix(msg, " (recovered by wazero)"), "\n")
			first = strings.TrimSuffix(first, " (recovered by wazero)")
			if o.memAtMax {
				return newError(abi.ErrOutOfMemory, o.err, "the tool ran out of memory (limit %s): %s", humanBytes(o.memLimit), first).
					with("limit_bytes", o.memLimit)
			}
			return newError(abi.ErrTrap, o.err, "the tool passed an invalid argument to a host function: %s", first)
		}
		// Since extism go-sdk v1.7.0 a guest's error_set message comes back
		// as the error, whatever the return code.
		return newError(abi.ErrGuest, o.err, "%s", truncate(msg, 2000)).with("rc", o.rc)
	}
	if o.rc != 0 {
		if oomText.MatchString(o.stderr) {
			return newError(abi.ErrOutOfMemory, nil, "the tool ran out of memory (limit %s)", humanBytes(o.memLimit)).
				with("limit_bytes", o.memLimit)
		}
		return newError(abi.ErrGuest, nil, "the tool failed with code %d and no message", o.rc).with("rc", o.rc)
	}
	return nil
}

func panicLine(stderr string) string {
	if m := goPanic.FindString(stderr); m != "" {
		return truncate(strings.TrimSpace(m), 500)
	}
	if m := rustPanic.FindString(stderr); m != "" {
		return truncate(strings.TrimSpace(m), 500)
	}
	return ""
}

// truncate clips untrusted text for a message (package clip).
var truncate = clip.String

// humanBytes writes a size for a message (package bytesize).
var humanBytes = bytesize.Format
