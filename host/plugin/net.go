package plugin

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/host/netguard"
	"github.com/mcpwasm/mcpwasm/host/plugin/internal/hostenv"
)

// Network access (see host/netguard and ABI.md §6).
//
// Plugins call Extism's http_request, http_status_code and http_headers
// (extism:host/env), which Extism would serve with Go's default client:
// redirects followed unchecked, private addresses reachable. hostenv
// serves them through netHTTP instead, the plugin's netguard.Guard, with
// Extism's signatures and JSON formats, so plugins built with any Extism
// PDK work unchanged.
//
// A refused or failed request never traps: the guest gets an answer in
// the server's place, with a 4xx or 5xx status, the x-mcpwasm-error header
// naming the reason and the message as a text body, which PDK code that
// checks the status reports as an error.

// maxRequestJSON bounds http_request's request object.
const maxRequestJSON = 1 << 20

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

// netHTTP serves hostenv's HTTP functions from the running call's
// netCall.
type netHTTP struct{}

// netCallOf is the running call's network state, made at its first
// request (most calls make none); nil outside a call, or before any
// request when create is false.
func netCallOf(in *hostenv.Instance, create bool) *netCall {
	st, ok := in.Host.(*callState)
	if !ok {
		return nil
	}
	if st.net == nil && create && st.plugin != nil {
		st.net = st.plugin.newNetCall()
	}
	return st.net
}

// readBlock returns the kernel block at handle: a copy when it is at most
// max bytes, otherwise a view of kernel memory, which the caller only
// measures. It never frees the block: the PDKs free their request and
// body blocks themselves after the call, as they must with Extism's own
// kernel (the Rust runtime never frees them).
func readBlock(k *hostenv.Kernel, handle uint64, max int64) ([]byte, error) {
	view, ok := k.Block(handle)
	if !ok {
		return nil, fmt.Errorf("handle %d is not a memory block", handle)
	}
	if int64(len(view)) > max {
		return view, nil
	}
	return append([]byte(nil), view...), nil
}

func badRequest(format string, args ...any) *netguard.Response {
	return (&netguard.Error{Reason: netguard.ReasonBadRequest, Msg: fmt.Sprintf(format, args...)}).Response()
}

// Request serves http_request(request, body) -> response body.
func (netHTTP) Request(ctx context.Context, in *hostenv.Instance, request, body uint64) uint64 {
	nc, k := netCallOf(in, true), in.Kernel
	res := func() *netguard.Response {
		if nc == nil {
			return badRequest("http_request is not available outside a call")
		}
		if st := callStateFrom(ctx); st != nil && !st.gate.commit() {
			return badRequest("http_request: the call is being run again on machine code")
		}
		raw, err := readBlock(k, request, maxRequestJSON)
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
		if body != 0 {
			if req.Body, err = readBlock(k, body, nc.limits.MaxRequestBody); err != nil {
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
		return 0
	}
	h, ok := k.Write(res.Body)
	if !ok {
		// The kernel's memory cannot hold the body: say so, in a block small
		// enough to fit if anything does.
		e := &netguard.Error{Reason: netguard.ReasonResponseSize,
			Msg: fmt.Sprintf("the response body (%d bytes) does not fit in the plugin's memory", len(res.Body))}
		small := e.Response()
		if nc != nil {
			nc.status, nc.headers = int32(small.Status), small.Headers
		}
		h, _ = k.Write(small.Body)
	}
	return h
}

// StatusCode serves http_status_code: the last response's status, or 0.
func (netHTTP) StatusCode(_ context.Context, in *hostenv.Instance) int32 {
	if nc := netCallOf(in, false); nc != nil {
		return nc.status
	}
	return 0
}

// Headers serves http_headers: the last response's headers as a JSON
// object in a new block, or 0 before any response.
func (netHTTP) Headers(_ context.Context, in *hostenv.Instance) uint64 {
	nc := netCallOf(in, false)
	if nc == nil || nc.headers == nil {
		return 0
	}
	b, _ := json.Marshal(nc.headers)
	h, _ := in.Kernel.Write(b)
	return h
}
