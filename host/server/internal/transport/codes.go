package transport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk answers a handler's plain Go error (and a few of its own) as a
// JSON-RPC error with code 0, which JSON-RPC does not define. Every error
// leaving the server gets a proper code: WithCode for handlers (package
// server's codes middleware), WithCodes for what go-sdk answers before any
// handler runs.

// CodeCancelled answers a request the client cancelled. Neither JSON-RPC
// nor MCP defines a code for it (MCP asks for no answer at all, which
// go-sdk does not honour), so it is JSON-RPC's generic implementation-
// defined server error, in the range 2026-07-28 leaves to SDKs; the
// message says what happened. (It was LSP's -32800, inside the range
// JSON-RPC reserves and defines nothing for.)
const CodeCancelled = -32000

// WithCode returns err as a JSON-RPC error with a non-zero code. Errors
// that carry one already are returned as they are.
func WithCode(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		return err
	}
	code := int64(jsonrpc.CodeInternalError)
	switch {
	case errors.Is(err, context.Canceled):
		code = CodeCancelled
	case strings.Contains(err.Error(), "invalid during session initialization"),
		strings.Contains(err.Error(), `duplicate "initialize"`):
		code = jsonrpc.CodeInvalidRequest // a request before initialize, a second initialize
	}
	return &jsonrpc.Error{Code: code, Message: err.Error()}
}

// WithCodes gives a code to every error response written on t (stdio,
// in-memory), and drops an error's data when it is not JSON (package
// server's encode.go says why: go-sdk would end the session).
func WithCodes(t mcp.Transport) mcp.Transport { return codeTransport{t} }

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
		r.Error = WithCode(r.Error)
		if we, ok := r.Error.(*jsonrpc.Error); ok && len(we.Data) > 0 && !json.Valid(we.Data) {
			r.Error = &jsonrpc.Error{Code: we.Code, Message: we.Message} // not JSON: go-sdk's write would fail
		}
	}
	return c.Connection.Write(ctx, msg)
}
