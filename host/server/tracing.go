package server

import (
	"context"
	"errors"
	"reflect"

	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// traceRequests is the outermost receiving middleware: with tracing on
// (package tracing), every request and notification gets a server span,
// in the caller's trace when its _meta (or, over HTTP, its headers) carry
// a traceparent; the guest call's spans are its children. With tracing
// off it costs one atomic load.
func (s *Server) traceRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !tracing.Enabled() {
			return next(ctx, method, req)
		}
		ctx, sp := tracing.StartRequest(ctx, traceRequest(method, req))
		res, err := next(ctx, method, req)
		var code int64
		msg := ""
		if err != nil {
			code, msg = jsonrpc.CodeInternalError, err.Error()
			var we *jsonrpc.Error
			if errors.As(transport.WithCode(err), &we) {
				code, msg = we.Code, we.Message
			}
		}
		r, isTool := res.(*mcp.CallToolResult)
		sp.EndRequest(code, msg, isTool && r != nil && r.IsError)
		return res, err
	}
}

// traceRequest describes a request for its span.
func traceRequest(method string, req mcp.Request) tracing.Request {
	r := tracing.Request{Method: method}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		r.Session = ss.ID()
	}
	if pv, ok := req.(interface{ ProtocolVersion() string }); ok {
		r.ProtocolVersion = pv.ProtocolVersion()
	}
	ex := req.GetExtra()
	r.ID = transport.RawRequestID(ex)
	if transport.OverHTTP(ex) {
		r.HTTP, r.Header = true, ex.Header
	}
	params := req.GetParams()
	// reflect: a typed nil params pointer in the interface (no field read).
	if v := reflect.ValueOf(params); !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return r
	}
	r.Meta = params.GetMeta()
	switch q := req.(type) {
	case *mcp.CallToolRequest:
		r.Tool = q.Params.Name
	case *mcp.GetPromptRequest:
		r.Prompt = q.Params.Name
	case *mcp.ReadResourceRequest:
		r.ResourceURI = q.Params.URI
	case *mcp.SubscribeRequest:
		r.ResourceURI = q.Params.URI
	case *mcp.UnsubscribeRequest:
		r.ResourceURI = q.Params.URI
	}
	return r
}
