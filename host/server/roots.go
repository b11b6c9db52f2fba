package server

import (
	"context"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Filesystem access is granted by the operator and narrowed by the client:
// a plugin's mounts are the intersection of its grants (config, --root) and
// the client's roots, made in one place (package mounts); host/plugin then
// opens each mount inside its grant, refusing one outside (the
// enforcement). A client without roots gets the grants; a root outside
// every grant is ignored with a warning. Calls to plugins without grants
// never ask for roots.

func (s *Server) rootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	s.mounts.Changed(req.Session)
}

// rootsInputID keys the roots request in a 2026-07-28 round trip.
const rootsInputID = "mcpwasm-roots"

// callMounts returns the folders a call of p may use: its grants narrowed
// by the client's roots. ok is false when a 2026-07-28 call must first ask
// the client for its roots (rt then holds what to ask). A request that
// cannot make round trips (rt nil) in 2026-07-28 gets the grants. Waiting
// for the client's roots counts against the call's time limit: a client
// that never answers cannot hold the call.
func (s *Server) callMounts(ctx context.Context, p *plugin.Plugin, session *mcp.ServerSession,
	caps *mcp.ClientCapabilities, modern bool, rt *roundTrip) (_ []abi.Mount, ok bool, err error) {
	grants := p.Config().Grants
	if len(grants) == 0 {
		return nil, true, nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.Config().Timeout)
	defer cancel()
	var roots []string // nil: the client does not narrow
	switch {
	case caps == nil || caps.RootsV2 == nil:
	case modern && rt != nil:
		raw, found := rt.known(rootsInputID)
		if !found {
			return nil, false, nil
		}
		if roots, err = s.mounts.Answer(raw); err != nil {
			return nil, false, err
		}
	case !modern && session != nil:
		if roots, err = s.mounts.Session(ctx, session); err != nil {
			return nil, false, explain("list_roots", err)
		}
	}
	return s.mounts.For(grants, roots), true, nil
}
