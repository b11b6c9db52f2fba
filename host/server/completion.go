package server

import (
	"context"
	"errors"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// completion/complete: argument completions for a prompt or a resource
// template, answered by the plugin that declares it. Completions report
// nothing to the client (no callbacks) and make no round trips.

// complete serves completion/complete.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var meta mcp.Meta
	if req.Params != nil {
		meta = req.Params.Meta
	}
	g, err := s.open(ctx, req, openSpec{meta: meta, noCallbacks: true})
	if err != nil {
		return nil, err
	}
	defer g.stop()
	res, err := s.reg.Complete(g.ctx, req.Params, g.inv)
	if err != nil {
		code := int64(jsonrpc.CodeInternalError)
		if errors.Is(err, registry.ErrNotFound) {
			code = jsonrpc.CodeInvalidParams
		}
		return nil, &jsonrpc.Error{Code: code, Message: err.Error()}
	}
	return res, nil
}
