package server

import (
	"context"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/guestmeta"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools/call: a registry tool run in its plugin's sandbox, through the one
// guest-request path (guest.go). A guest failure is an isError result, never
// a protocol error; a 2026-07-28 call that needs the client's input answers
// with an input-required result (roundtrip.go).

// toolHandler serves tools/call for t.
func (s *Server) toolHandler(t *registry.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		g, err := s.open(ctx, req, openSpec{plugin: t.Plugin, name: t.Def.Name, target: toolTarget(t.Def.Name),
			args: req.Params.Arguments, meta: req.Params.Meta, token: req.Params.GetProgressToken(),
			responses: req.Params.InputResponses, state: req.Params.RequestState})
		if err != nil {
			return nil, err
		}
		defer g.stop()
		cb := g.cb
		ok, err := s.mount(g, req, t.Plugin)
		if err != nil {
			return t.HostError(fmt.Sprintf("could not learn the client's roots: %v", err)), nil
		}
		if !ok {
			return cb.roundTrip.ask(rootsInputID, &mcp.ListRootsParams{})
		}
		ctx = g.ctx
		res := guestmeta.Result(t.Call(ctx, registry.CallRequest{Arguments: req.Params.Arguments, Invocation: g.inv}))
		if cb.roundTrip != nil {
			if ir, err := cb.roundTrip.result(); err != nil {
				return t.HostError(err.Error()), nil // the guest's requests outgrew the round-trip state
			} else if ir != nil {
				return ir, nil
			}
		}
		if err := cb.missingCapability(guestFailed(res)); err != nil {
			return nil, err
		}
		if res.IsError {
			s.logger.InfoContext(ctx, "tool call failed", "tool", t.Def.Name, "meta", res.Meta)
		}
		return res, nil
	}
}

// guestFailed reports whether a tool result is a failure the guest
// produced itself (an isError result, or a non-zero return), as opposed to
// one the host classified (timeout, trap, ...).
func guestFailed(res *mcp.CallToolResult) bool {
	if !res.IsError {
		return false
	}
	cat, _ := res.Meta[abi.MetaErrorKey].(string)
	return cat == "" || cat == string(abi.ErrGuest)
}
