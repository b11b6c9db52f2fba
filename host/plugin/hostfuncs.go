package plugin

import (
	"context"
	"encoding/json"

	extism "github.com/extism/go-sdk"
	"github.com/mcpwasm/mcpwasm/abi"
)

// Callbacks receives what a guest sends to its client in the middle of a
// call. The server implements it per request; the plugin layer only moves
// bytes and never sees a session.
type Callbacks interface {
	// Progress handles a notify_progress payload ({"progress","total","message"}).
	Progress(ctx context.Context, payload json.RawMessage) error
	// Log handles a notify_logging_message payload ({"level","logger","data"}).
	Log(ctx context.Context, payload json.RawMessage) error
}

type callbacksKey struct{}

// WithCallbacks returns a context whose guest calls report to cb.
func WithCallbacks(ctx context.Context, cb Callbacks) context.Context {
	return context.WithValue(ctx, callbacksKey{}, cb)
}

func callbacksFrom(ctx context.Context) Callbacks {
	cb, _ := ctx.Value(callbacksKey{}).(Callbacks)
	return cb
}

// maxHostPayload bounds what one host-function call may hand the host.
const maxHostPayload = 1 << 20

// HostFunctions lists the extism:host/user functions this host provides, by
// name. A plugin importing any other user function is refused at load.
var HostFunctions = map[string]bool{
	"notify_progress":        true,
	"notify_logging_message": true,
}

// readPayload takes ownership of the kernel block at handle and returns its
// bytes, or nil if it is absent or too large.
func readPayload(ctx context.Context, p *extism.CurrentPlugin, handle uint64) []byte {
	if handle == 0 {
		return nil
	}
	defer p.FreeWithContext(ctx, handle) //nolint:errcheck // the block is the host's to free; a failure leaks only guest memory
	n, err := p.LengthWithContext(ctx, handle)
	if err != nil || n > maxHostPayload {
		return nil
	}
	b, err := p.ReadBytes(handle)
	if err != nil {
		return nil
	}
	return b
}

func notifyFunc(name string, deliver func(Callbacks, context.Context, json.RawMessage) error) extism.HostFunction {
	f := extism.NewHostFunctionWithStack(name,
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			payload := readPayload(ctx, p, stack[0])
			cb := callbacksFrom(ctx)
			if payload == nil || cb == nil || ctx.Err() != nil || !json.Valid(payload) {
				return
			}
			_ = deliver(cb, ctx, payload) // a notification the client cannot take is dropped, never fatal to the call
		},
		[]extism.ValueType{extism.ValueTypePTR}, nil)
	f.SetNamespace(abi.NamespaceUser)
	return f
}

func hostFunctions() []extism.HostFunction {
	return []extism.HostFunction{
		notifyFunc("notify_progress", Callbacks.Progress),
		notifyFunc("notify_logging_message", Callbacks.Log),
	}
}
