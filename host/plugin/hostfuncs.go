package plugin

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin/internal/hostenv"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
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
// CallOptions), or nil. Asking commits an interpreted call to the
// interpreter (tier.go); nil if that run was abandoned.
func callbacksFrom(ctx context.Context) Callbacks {
	if st := callStateFrom(ctx); st != nil && st.gate.commit() {
		return st.cb
	}
	return nil
}

// maxHostPayload bounds what one host-function call may hand the host.
const maxHostPayload = 1 << 20

// hostFunc is a host function this package serves (extism:host/user and
// the interruption points): its name, wasm type and Go code. Its kernel
// handles are the call's kernel memory's (kernelOf).
type hostFunc struct {
	name            string
	params, results []api.ValueType
	fn              func(ctx context.Context, stack []uint64)
}

// instantiateHostModule adds the host module ns serving fs to r.
func instantiateHostModule(ctx context.Context, r wazero.Runtime, ns string, fs []hostFunc) error {
	b := r.NewHostModuleBuilder(ns)
	for _, f := range fs {
		fn := f.fn
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
			fn(ctx, stack)
		}), f.params, f.results).Export(f.name)
	}
	_, err := b.Instantiate(ctx)
	return err
}

// HostFunctions lists the extism:host/user functions this host provides, by
// name. A plugin importing any other user function is refused at load.
var HostFunctions = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range hostFunctions() {
		m[f.name] = true
	}
	return m
}()

// kernelOf is the running call's kernel memory. Host functions run only
// inside a call, whose context carries it.
func kernelOf(ctx context.Context) *hostenv.Kernel {
	return hostenv.From(ctx).Kernel
}

// readPayload takes ownership of the kernel block at handle and returns its
// bytes, or nil if it is absent or too large.
func readPayload(ctx context.Context, handle uint64) []byte {
	if handle == 0 {
		return nil
	}
	k := kernelOf(ctx)
	defer k.Free(handle) // the block is the host's to free
	if k.Length(handle) > maxHostPayload {
		return nil
	}
	b, ok := k.Block(handle)
	if !ok {
		return nil
	}
	return append([]byte(nil), b...)
}

func notifyFunc(name string, deliver func(Callbacks, context.Context, json.RawMessage) error) hostFunc {
	return hostFunc{name, ptrParams(true), nil, func(ctx context.Context, stack []uint64) {
		payload := readPayload(ctx, stack[0])
		cb := callbacksFrom(ctx)
		if payload == nil || cb == nil || ctx.Err() != nil || !json.Valid(payload) {
			return
		}
		_ = deliver(cb, ctx, payload) // a notification the client cannot take is dropped, never fatal to the call
	}}
}

// requestFunc is a host function that asks the client something and returns
// its answer, or {"error":{"message":...}}, as a new kernel block.
func requestFunc(name string, takesInput bool) hostFunc {
	return hostFunc{name, ptrParams(takesInput), ptrParams(true), func(ctx context.Context, stack []uint64) {
		var payload []byte
		if takesInput {
			payload = readPayload(ctx, stack[0])
			if payload == nil || !json.Valid(payload) {
				stack[0] = writeResult(ctx, nil, errors.New("the request is not valid JSON (or is over 1 MiB)"))
				return
			}
		}
		cb := callbacksFrom(ctx)
		if cb == nil {
			stack[0] = writeResult(ctx, nil, errors.New("no client is connected to this call"))
			return
		}
		done := blocking(ctx)
		res, err := cb.Request(ctx, name, payload)
		done()
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		stack[0] = writeResult(ctx, res, err)
	}}
}

func writeResult(ctx context.Context, res json.RawMessage, err error) uint64 {
	if err != nil {
		var he *abi.HostError
		if !errors.As(err, &he) {
			he = &abi.HostError{Message: err.Error()}
		}
		res, _ = json.Marshal(map[string]any{"error": he})
	}
	h, _ := kernelOf(ctx).Write(res) // 0 when the kernel is out of memory: the guest sees a null handle
	return h
}

// eventFunc is a notification without a reply; withInput says whether it
// takes a JSON payload.
func eventFunc(name string, withInput bool) hostFunc {
	return hostFunc{name, ptrParams(withInput), nil, func(ctx context.Context, stack []uint64) {
		var payload []byte
		if withInput {
			if payload = readPayload(ctx, stack[0]); payload == nil || !json.Valid(payload) {
				return
			}
		}
		if cb := callbacksFrom(ctx); cb != nil && ctx.Err() == nil {
			_ = cb.Notify(ctx, name, payload) // best effort, like every notification
		}
	}}
}

func hostFunctions() []hostFunc {
	return []hostFunc{
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

// ptrParams is the type list of one kernel handle, or none.
func ptrParams(one bool) []api.ValueType {
	if one {
		return []api.ValueType{api.ValueTypeI64}
	}
	return nil
}
