package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/guestmeta"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// prompts/get: a registry prompt rendered by its plugin, through the
// guest-request path, with round trips as tools/call has them.

// promptHandler serves prompts/get for pr.
func (s *Server) promptHandler(pr *registry.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if missing := pr.MissingArguments(req.Params.Arguments); len(missing) > 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("prompt %q: missing required arguments %q", pr.Def.Name, missing)}
		}
		args, _ := json.Marshal(req.Params.Arguments)
		g, err := s.open(ctx, req, openSpec{plugin: pr.Plugin, name: pr.Def.Name, target: promptTarget(pr.Def.Name),
			args: args, meta: req.Params.Meta, token: req.Params.GetProgressToken(),
			responses: req.Params.InputResponses, state: req.Params.RequestState})
		if err != nil {
			return nil, err
		}
		defer g.stop()
		ctx, cb := g.ctx, g.cb
		res, err := pr.Get(ctx, req.Params.Arguments, g.inv)
		if reqs, state, serr := g.roundTripNeeded(); serr != nil || reqs != nil {
			if serr != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: serr.Error()}
			}
			return &mcp.GetPromptResult{InputRequests: reqs, RequestState: state}, nil
		}
		if err := cb.missingCapability(err != nil); err != nil {
			return nil, err
		}
		if err != nil {
			s.logger.InfoContext(ctx, "prompt failed", "prompt", pr.Def.Name, "err", err)
			code := int64(jsonrpc.CodeInternalError)
			if errors.Is(err, registry.ErrNotFound) {
				code = jsonrpc.CodeInvalidParams
			}
			return nil, &jsonrpc.Error{Code: code, Message: err.Error()}
		}
		return guestmeta.Prompt(res), nil
	}
}
