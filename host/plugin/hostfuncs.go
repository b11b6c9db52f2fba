package plugin

import (
	"context"
	"encoding/json"
	"errors"

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
	// Request makes a request of the client (create_message,
	// create_elicitation, list_roots, request_input) and returns its result.
	// It must return when ctx ends. An *abi.HostError reaches the guest with
	// its code and data.
	Request(ctx context.Context, function string, payload json.RawMessage) (json.RawMessage, error)
	// Notify handles notify_resource_updated and the notify_*_list_changed
	// functions; payload is nil for the latter.
	Notify(ctx context.Context, function string, payload json.RawMessage) error
}

// callbacksFrom returns where the running call's guest reports (see
// CallOptions), or nil.
func callbacksFrom(ctx context.Context) Callbacks {
	if st := callStateFrom(ctx); st != nil {
		return st.cb
	}
	return nil
}

// maxHostPayload bounds what one host-function call may hand the host.
const maxHostPayload = 1 << 20

// HostFunctions lists the extism:host/user functions this host provides, by
// name. A plugin importing any other user function is refused at load.
var HostFunctions = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range hostFunctions() {
		m[f.Name] = true
	}
	return m
}()

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

// requestFunc is a host function that asks the client something and returns
// its answer, or {"error":{"message":...}}, as a new kernel block.
func requestFunc(name string, takesInput bool) extism.HostFunction {
	f := extism.NewHostFunctionWithStack(name,
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			var payload []byte
			if takesInput {
				payload = readPayload(ctx, p, stack[0])
				if payload == nil || !json.Valid(payload) {
					stack[0] = writeResult(ctx, p, nil, errors.New("the request is not valid JSON (or is over 1 MiB)"))
					return
				}
			}
			cb := callbacksFrom(ctx)
			if cb == nil {
				stack[0] = writeResult(ctx, p, nil, errors.New("no client is connected to this call"))
				return
			}
			done := blocking(ctx)
			res, err := cb.Request(ctx, name, payload)
			done()
			if err == nil && ctx.Err() != nil {
				err = ctx.Err()
			}
			stack[0] = writeResult(ctx, p, res, err)
		},
		ptrParams(takesInput), []extism.ValueType{extism.ValueTypePTR})
	f.SetNamespace(abi.NamespaceUser)
	return f
}

func writeResult(ctx context.Context, p *extism.CurrentPlugin, res json.RawMessage, err error) uint64 {
	if err != nil {
		var he *abi.HostError
		if !errors.As(err, &he) {
			he = &abi.HostError{Message: err.Error()}
		}
		res, _ = json.Marshal(map[string]any{"error": he})
	}
	h, werr := p.WriteBytes(res)
	if werr != nil {
		return 0 // the kernel is out of memory; the guest sees a null handle
	}
	return h
}

// eventFunc is a notification without a reply; withInput says whether it
// takes a JSON payload.
func eventFunc(name string, withInput bool) extism.HostFunction {
	f := extism.NewHostFunctionWithStack(name,
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			var payload []byte
			if withInput {
				if payload = readPayload(ctx, p, stack[0]); payload == nil || !json.Valid(payload) {
					return
				}
			}
			if cb := callbacksFrom(ctx); cb != nil && ctx.Err() == nil {
				_ = cb.Notify(ctx, name, payload) // best effort, like every notification
			}
		},
		ptrParams(withInput), nil)
	f.SetNamespace(abi.NamespaceUser)
	return f
}

func hostFunctions() []extism.HostFunction {
	return []extism.HostFunction{
		notifyFunc("notify_progress", Callbacks.Progress),
		notifyFunc("notify_logging_message", Callbacks.Log),
		requestFunc("create_message", true),
		requestFunc("create_elicitation", true),
		requestFunc("list_roots", false),
		requestFunc(abi.HostFunctionRequestInput, true),
		eventFunc("notify_resource_updated", true),
		eventFunc("notify_tool_list_changed", false),
		eventFunc("notify_resource_list_changed", false),
		eventFunc("notify_prompt_list_changed", false),
		eventFunc("notify_url_elicitation_completed", true),
	}
}

// ptrParams is the parameter list of a host function taking one kernel
// handle, or none.
func ptrParams(one bool) []extism.ValueType {
	if one {
		return []extism.ValueType{extism.ValueTypePTR}
	}
	return nil
}
