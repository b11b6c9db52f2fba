package server

import (
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
	var kind, name string
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r.Params == nil {
			return nil
		}
		if _, ok := s.reg.Lookup(r.Params.Name); ok {
			return nil
		}
		kind, name = "tool", r.Params.Name
	case *mcp.GetPromptRequest:
		if r.Params == nil {
			return nil
		}
		if _, ok := s.reg.LookupPrompt(r.Params.Name); ok {
			return nil
		}
		kind, name = "prompt", r.Params.Name
	case *mcp.ReadResourceRequest:
		if r.Params == nil {
			return nil
		}
		if _, ok := s.reg.ResourceOwner(r.Params.URI); ok {
			return nil
		}
		kind, name = "resource", r.Params.URI
	default:
		return nil
	}
	if msg, ok := s.opts.Held(kind, name); ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	}
	return nil
}
