package server

import (
	"context"

	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"github.com/mcpwasm/mcpwasm/host/server/internal/encode"
	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every error leaving the server carries a JSON-RPC code (the codes
// middleware; transport.WithCodes for what go-sdk answers itself), and the
// codes mcpwasm itself answers with are here.

// codes is the outermost receiving middleware but for traceRequests: it gives every handler
// error a code, and makes sure the answer can be encoded (encode.go).
func (s *Server) codes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			err = transport.WithCode(err)
		}
		res, err, why := encode.Answer(method, req, res, err)
		if why != "" {
			s.logger.WarnContext(ctx, "answer could not be encoded; sent a replacement", "method", method, "err", clip.String(why, clip.Log))
		}
		return res, err
	}
}

// CodeForbidden is the JSON-RPC error code of a request refused because
// the caller's token lacks the scope its target needs. It is an
// application code, outside the range JSON-RPC reserves (-32768 to
// -32000): protocol 2026-07-28 gives -32020 to -32099 to the MCP
// specification (HeaderMismatch -32020, MissingRequiredClientCapability
// -32021, UnsupportedProtocolVersion -32022, URLElicitationRequired
// -32042) and leaves -32000 to -32019 to SDKs (go-sdk reads -32003/-32004
// as a closed connection), so -32030, used before, was the
// specification's to allocate. 403 echoes HTTP's Forbidden.
const CodeForbidden = -31403

// The tasks extension's overload code is taskwire.CodeOverload.

// errShuttingDown answers a request that arrives after Drain began.
var errShuttingDown = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is shutting down"}
