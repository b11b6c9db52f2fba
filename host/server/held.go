package server

import (
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/reach"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// heldError answers a request for a tool, prompt or resource that is not
// served because host/trust holds it (changed or new since approved):
// the error says it is held and how to approve it, where go-sdk would only
// say it is unknown. Nil when the target is served, or not held.
func (s *Server) heldError(method string, req mcp.Request) error {
	if s.opts.Held == nil {
		return nil
	}
	switch req.(type) {
	case *mcp.CallToolRequest, *mcp.GetPromptRequest, *mcp.ReadResourceRequest:
	default:
		return nil
	}
	k, name, ok := reach.Named(req)
	if !ok {
		return nil
	}
	if _, served := reach.Owner(s.reg, k, name); served {
		return nil
	}
	kind := map[registry.Kind]string{registry.KindTool: "tool", registry.KindPrompt: "prompt", registry.KindResource: "resource"}[k]
	if msg, ok := s.opts.Held(kind, name); ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	}
	return nil
}
