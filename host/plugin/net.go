package plugin

import (
	"context"
	"encoding/json"
	"fmt"

	extism "github.com/extism/go-sdk"
	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/internal/wasmbin"
	"github.com/mcpwasm/mcpwasm/host/netguard"
)

// Network access (see host/netguard and ABI.md §6).
//
// Plugins call Extism's http_request, http_status_code and http_headers,
// which the Extism kernel (extism:host/env) would serve with Go's default
// client: redirects followed unchecked, private addresses reachable. At
// load, those imports are renamed into netNamespace, reserved like the
// interrupt namespace, and served here by the plugin's netguard.Guard,
// with Extism's signatures and JSON formats, so plugins built with any
// Extism PDK work unchanged.
//
// A refused or failed request never traps: the guest gets an answer in
// the server's place, with a 4xx or 5xx status, the x-mcpwasm-error header
// naming the reason and the message as a text body, which PDK code that
// checks the status reports as an error.

// netNamespace holds the network host functions after the rename. A plugin
// importing it itself is refused like any unknown namespace.
const netNamespace = "mcpwasm:host/net"

// netImports are the kernel functions served from netNamespace instead.
var netImports = map[string]bool{"http_request": true, "http_status_code": true, "http_headers": true}

// maxRequestJSON bounds http_request's request object.
const maxRequestJSON = 1 << 20

// renameServedImports moves a module's network imports into netNamespace
// and its kernel imports that Extism serves through a trampoline into
// kernelNamespace (kernel.go).
func renameServedImports(wasm []byte) ([]byte, error) {
	out, _, err := wasmbin.RenameImports(wasm, func(mod, name string) (string, bool) {
		if mod != abi.NamespaceKernel {
			return "", false
		}
		if netImports[name] {
			return netNamespace, true
		}
		if _, ok := kernelIndex[name]; ok {
			return kernelNamespace, true
		}
		return "", false
	})
	return out, err
}

// netCall is the network state of one guest call.
type netCall struct {
	call    *netguard.Call
	limits  netguard.Limits
	status  int32             // the last response's status, 0 before any
	headers map[string]string // the last response's headers, nil before any
}

// newNetCall gives a call its own request count and last-response state.
func (p *Plugin) newNetCall() *netCall {
	return &netCall{call: p.net.NewCall(), limits: p.net.Limits()}
}

func netCallFrom(ctx context.Context) *netCall {
	if st := callStateFrom(ctx); st != nil {
		return st.net
	}
	return nil
}

// readBlock returns the kernel block at handle: a copy when it is at most
// max bytes, otherwise a view of guest memory, which the caller only
// measures. It never frees the block: the PDKs free their request and
// body blocks themselves after the call, as they must with Extism's own
// kernel (the Rust runtime never frees them).
func readBlock(ctx context.Context, p *extism.CurrentPlugin, handle uint64, max int64) ([]byte, error) {
	n, err := p.LengthWithContext(ctx, handle)
	if err != nil {
		return nil, fmt.Errorf("handle %d is not a memory block", handle)
	}
	view, ok := p.Memory().Read(uint32(handle), uint32(n))
	if !ok {
		return nil, fmt.Errorf("handle %d is not a memory block", handle)
	}
	if int64(n) > max {
		return view, nil
	}
	return append([]byte(nil), view...), nil
}

func badRequest(format string, args ...any) *netguard.Response {
	return (&netguard.Error{Reason: netguard.ReasonBadRequest, Msg: fmt.Sprintf(format, args...)}).Response()
}

// httpRequest serves http_request(request, body) -> response body.
func httpRequest(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
	nc := netCallFrom(ctx)
	res := func() *netguard.Response {
		if nc == nil {
			return badRequest("http_request is not available outside a call")
		}
		raw, err := readBlock(ctx, p, stack[0], maxRequestJSON)
		if err != nil {
			return badRequest("http_request: the request: %v", err)
		}
		if len(raw) > maxRequestJSON {
			return badRequest("http_request: the request object is over 1 MiB")
		}
		var req netguard.Request
		if err := json.Unmarshal(raw, &req); err != nil {
			return badRequest(`http_request: the request is not a JSON object {"url": ..., "method": ..., "headers": {...}}: %v`, err)
		}
		if stack[1] != 0 {
			if req.Body, err = readBlock(ctx, p, stack[1], nc.limits.MaxRequestBody); err != nil {
				return badRequest("http_request: the body: %v", err)
			}
		}
		done := blocking(ctx)
		res, gerr := nc.call.Do(ctx, req)
		done()
		if gerr != nil {
			return gerr.Response()
		}
		return res
	}()
	if nc != nil {
		nc.status, nc.headers = int32(res.Status), res.Headers
	}
	if len(res.Body) == 0 {
		stack[0] = 0
		return
	}
	h, err := p.WriteBytes(res.Body)
	if err != nil {
		// The kernel's memory cannot hold the body: say so, in a block small
		// enough to fit if anything does.
		e := &netguard.Error{Reason: netguard.ReasonResponseSize,
			Msg: fmt.Sprintf("the response body (%d bytes) does not fit in the plugin's memory", len(res.Body))}
		small := e.Response()
		if nc != nil {
			nc.status, nc.headers = int32(small.Status), small.Headers
		}
		if h, err = p.WriteBytes(small.Body); err != nil {
			h = 0
		}
	}
	stack[0] = h
}

// netFunctions are the host functions of netNamespace.
func netFunctions() []extism.HostFunction {
	req := extism.NewHostFunctionWithStack("http_request", httpRequest,
		[]extism.ValueType{extism.ValueTypeI64, extism.ValueTypeI64}, []extism.ValueType{extism.ValueTypeI64})
	status := extism.NewHostFunctionWithStack("http_status_code",
		func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) {
			stack[0] = 0
			if nc := netCallFrom(ctx); nc != nil {
				stack[0] = uint64(uint32(nc.status))
			}
		}, nil, []extism.ValueType{extism.ValueTypeI32})
	headers := extism.NewHostFunctionWithStack("http_headers",
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			stack[0] = 0
			nc := netCallFrom(ctx)
			if nc == nil || nc.headers == nil {
				return
			}
			b, _ := json.Marshal(nc.headers)
			if h, err := p.WriteBytes(b); err == nil {
				stack[0] = h
			}
		}, nil, []extism.ValueType{extism.ValueTypeI64})
	for _, f := range []*extism.HostFunction{&req, &status, &headers} {
		f.SetNamespace(netNamespace)
	}
	return []extism.HostFunction{req, status, headers}
}
