package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/host/internal/clip"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AddEntry publishes everything a plugin declared. Connected clients get
// list_changed notifications. The registry has already checked each
// declaration by go-sdk's rules; should go-sdk still refuse one (it panics),
// nothing of the entry stays published and the refusal is returned.
func (s *Server) AddEntry(e *registry.Entry) error {
	s.noteChanges(e) // before go-sdk schedules its notice (filterListChanged reads the count)
	err := registry.Guard(func() {
		for _, t := range e.Tools {
			s.mcp.AddTool(t.Def, s.toolHandler(t))
		}
		for _, r := range e.Resources {
			s.mcp.AddResource(r.Def, s.readHandler)
		}
		for _, t := range e.Templates {
			s.mcp.AddResourceTemplate(t.Def, s.readHandler)
		}
		for _, p := range e.Prompts {
			s.mcp.AddPrompt(p.Def, s.promptHandler(p))
		}
	})
	if err != nil {
		s.removeEntry(e)
		return fmt.Errorf("plugin %q: go-sdk refused a declaration: %v", e.Plugin.Name(), err)
	}
	s.load.set(e.Plugin, true)
	return nil
}

// removeEntry withdraws what a plugin declared.
func (s *Server) removeEntry(e *registry.Entry) {
	var tools, prompts, uris, templates []string
	for _, t := range e.Tools {
		tools = append(tools, t.Def.Name)
	}
	for _, p := range e.Prompts {
		prompts = append(prompts, p.Def.Name)
	}
	for _, r := range e.Resources {
		uris = append(uris, r.Def.URI)
	}
	for _, t := range e.Templates {
		templates = append(templates, t.Def.URITemplate)
	}
	s.noteChanges(e)
	s.mcp.RemoveTools(tools...)
	s.mcp.RemovePrompts(prompts...)
	s.mcp.RemoveResources(uris...)
	s.mcp.RemoveResourceTemplates(templates...)
}

// noteChanges counts a change of each kind of list e touches.
func (s *Server) noteChanges(e *registry.Entry) {
	if len(e.Tools) > 0 {
		s.lists.changed(toolList)
	}
	if len(e.Resources)+len(e.Templates) > 0 {
		s.lists.changed(resourceList)
	}
	if len(e.Prompts) > 0 {
		s.lists.changed(promptList)
	}
}

func (s *Server) callbacksFor(session *mcp.ServerSession, token any, p *plugin.Plugin, what string) *callbacks {
	return &callbacks{srv: s, session: session, token: token, plugin: p,
		left: s.opts.NotificationsPerCall, logger: s.logger, tool: what}
}

func (s *Server) readHandler(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	p, ok := s.reg.ResourceOwner(req.Params.URI)
	if !ok {
		return nil, resourceNotFound(req.Params.URI)
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
		return nil, resourceNotFound(req.Params.URI)
	}
	if err != nil {
		// The URI is the client's (and the error may quote it): clipped.
		s.logger.InfoContext(ctx, "resource read failed", "uri", clip.String(req.Params.URI, clip.Log), "err", clip.String(err.Error(), clip.Log))
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return guestResource(res), nil
}

func (s *Server) promptHandler(pr *registry.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
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
		return guestPrompt(res), nil
	}
}

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

func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if len(req.Params.URI) > maxSubscribeURI {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("resources/subscribe: the URI is %d bytes long; at most %d", len(req.Params.URI), maxSubscribeURI)}
	}
	if _, ok := s.reg.ResourceOwner(req.Params.URI); !ok {
		return resourceNotFound(req.Params.URI)
	}
	return s.subs.add(req.Session, req.Params.URI)
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.subs.remove(req.Session, req.Params.URI)
	return nil
}

// refresher has a plugin's lists re-read after it says they changed
// (Options.ListsChanged). Requests coalesce: one refresh runs per plugin at
// a time, after a short delay, and outside the guest call that asked for it
// (which holds a concurrency slot).
type refresher struct {
	mu      sync.Mutex
	pending map[*plugin.Plugin]bool
}

func (s *Server) requestRefresh(p *plugin.Plugin) {
	if s.opts.ListsChanged == nil {
		return
	}
	s.refresh.mu.Lock()
	defer s.refresh.mu.Unlock()
	if s.refresh.pending == nil {
		s.refresh.pending = map[*plugin.Plugin]bool{}
	}
	if s.refresh.pending[p] {
		return
	}
	s.refresh.pending[p] = true
	time.AfterFunc(50*time.Millisecond, func() {
		s.refresh.mu.Lock()
		delete(s.refresh.pending, p)
		s.refresh.mu.Unlock()
		ep := s.epochs.begin() // p is not closed under the refresh (reload.go)
		defer s.epochs.end(ep)
		s.opts.ListsChanged(p)
	})
}
