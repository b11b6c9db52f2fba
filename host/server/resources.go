package server

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/encode"
	"github.com/mcpwasm/mcpwasm/host/server/internal/guestmeta"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resources/read, resources/subscribe and resources/unsubscribe: a read
// runs the plugin that owns the URI (a resource it declared, or one of its
// templates); subscriptions are per session, bounded, and an update reaches
// only the sessions subscribed to its URI.

// readHandler serves resources/read for every published resource and
// template.
func (s *Server) readHandler(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	p, ok := s.reg.ResourceOwner(req.Params.URI)
	if !ok {
		return nil, encode.ResourceNotFound(req.Params.URI)
	}
	g, err := s.open(ctx, req, openSpec{plugin: p, name: req.Params.URI, target: resourceTarget(req.Params.URI),
		meta: req.Params.Meta, token: req.Params.GetProgressToken(),
		responses: req.Params.InputResponses, state: req.Params.RequestState})
	if err != nil {
		return nil, err
	}
	defer g.stop()
	ctx, cb := g.ctx, g.cb
	var res *mcp.ReadResourceResult
	ok, err = s.mount(g, req, p)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "could not learn the client's roots: " + err.Error()}
	}
	if !ok {
		cb.roundTrip.need(rootsInputID, &mcp.ListRootsParams{})
	} else {
		res, err = s.reg.ReadResource(ctx, req.Params.URI, g.inv)
	}
	if reqs, state, serr := g.roundTripNeeded(); serr != nil || reqs != nil {
		if serr != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: serr.Error()}
		}
		return &mcp.ReadResourceResult{InputRequests: reqs, RequestState: state}, nil
	}
	if err := cb.missingCapability(err != nil); err != nil {
		return nil, err
	}
	if errors.Is(err, registry.ErrNotFound) {
		return nil, encode.ResourceNotFound(req.Params.URI)
	}
	if err != nil {
		// The URI is the client's (and the error may quote it): clipped.
		s.logger.InfoContext(ctx, "resource read failed", "uri", clip.String(req.Params.URI, clip.Log), "err", clip.String(err.Error(), clip.Log))
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return guestmeta.Resource(res), nil
}

// subscribe serves resources/subscribe for a URI a plugin serves.
func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if len(req.Params.URI) > maxSubscribeURI {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("resources/subscribe: the URI is %d bytes long; at most %d", len(req.Params.URI), maxSubscribeURI)}
	}
	if _, ok := s.reg.ResourceOwner(req.Params.URI); !ok {
		return encode.ResourceNotFound(req.Params.URI)
	}
	return s.subs.add(req.Session, req.Params.URI)
}

// unsubscribe serves resources/unsubscribe.
func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.subs.remove(req.Session, req.Params.URI)
	return nil
}

// go-sdk keeps a session's resource subscriptions (and logs each URI) for
// as long as the session lives, and a template can match URIs without
// end, so a session's subscriptions are bounded: in number, and in the
// length of each URI.
const (
	maxSubscriptions = 256
	maxSubscribeURI  = 4096
)

// subscriptions are the URIs each session is subscribed to.
type subscriptions struct {
	mu        sync.Mutex
	bySession map[*mcp.ServerSession]map[string]bool
}

// add records a subscription, or refuses one past maxSubscriptions.
// Subscribing again to a URI is free.
func (s *subscriptions) add(ss *mcp.ServerSession, uri string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bySession == nil {
		s.bySession = map[*mcp.ServerSession]map[string]bool{}
	}
	set := s.bySession[ss]
	if set == nil {
		set = map[string]bool{}
		s.bySession[ss] = set
		go func() { // forget the session's when it ends
			ss.Wait()
			s.mu.Lock()
			delete(s.bySession, ss)
			s.mu.Unlock()
		}()
	}
	if !set[uri] && len(set) >= maxSubscriptions {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("resources/subscribe: this session has %d subscriptions, the most one may hold; unsubscribe from one first", len(set))}
	}
	set[uri] = true
	return nil
}

func (s *subscriptions) remove(ss *mcp.ServerSession, uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.bySession[ss], uri)
}
