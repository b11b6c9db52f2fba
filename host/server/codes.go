package server

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk answers a handler's plain Go error (and a few of its own) as a
// JSON-RPC error with code 0, which JSON-RPC does not define. Every error
// leaving the server gets a proper code: the middleware below for handlers,
// codeTransport for what go-sdk answers before any handler runs.

// codeCancelled answers a request the client cancelled (LSP's
// RequestCancelled; JSON-RPC reserves no code for it).
const codeCancelled = -32800

// withCode returns err as a JSON-RPC error with a non-zero code. Errors
// that carry one already are returned as they are.
func withCode(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		return err
	}
	code := int64(jsonrpc.CodeInternalError)
	switch {
	case errors.Is(err, context.Canceled):
		code = codeCancelled
	case strings.Contains(err.Error(), "invalid during session initialization"),
		strings.Contains(err.Error(), `duplicate "initialize"`):
		code = jsonrpc.CodeInvalidRequest // a request before initialize, a second initialize
	}
	return &jsonrpc.Error{Code: code, Message: err.Error()}
}

// codes is the outermost receiving middleware but for traceRequests: it gives every handler
// error a code, and makes sure the answer can be encoded (encode.go).
func (s *Server) codes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			err = withCode(err)
		}
		res, err, why := encodable(method, req, res, err)
		if why != "" {
			s.logger.WarnContext(ctx, "answer could not be encoded; sent a replacement", "method", method, "err", clip.String(why, clip.Log))
		}
		return res, err
	}
}

// codeTransport gives a code to every error response written on a stream
// transport (stdio, in-memory).
type codeTransport struct{ mcp.Transport }

func (t codeTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return codeConn{c}, nil
}

type codeConn struct{ mcp.Connection }

func (c codeConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
		r.Error = withCode(r.Error)
		if we, ok := r.Error.(*jsonrpc.Error); ok && len(we.Data) > 0 && !json.Valid(we.Data) {
			r.Error = &jsonrpc.Error{Code: we.Code, Message: we.Message} // see encode.go
		}
	}
	return c.Connection.Write(ctx, msg)
}
