// Package server serves what the loaded plugins declare — tools,
// resources and templates, prompts, completions — over MCP, through the
// official go-sdk: stdio here (ServeStdio), Streamable HTTP through the edge
// package httpserve, any go-sdk transport through Connect.
//
// It is the only package that knows about sessions. A request flows one
// way: go-sdk → the guest-request path (guest.go) → the feature's handler
// (tools.go, resources.go, prompts.go, completion.go) → registry → plugin
// sandbox → result; guest notifications and requests for client input flow
// back through the per-request callbacks (callbacks.go, input.go,
// roundtrip.go).
package server

import (
	"context"
	"crypto/rand"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/policy/entity"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/capscache"
	"github.com/mcpwasm/mcpwasm/host/server/internal/listnotice"
	"github.com/mcpwasm/mcpwasm/host/server/internal/mounts"
	"github.com/mcpwasm/mcpwasm/host/server/internal/scrub"
	"github.com/mcpwasm/mcpwasm/host/server/internal/sessiontrim"
	"github.com/mcpwasm/mcpwasm/host/server/internal/skills"
	"github.com/mcpwasm/mcpwasm/host/server/internal/taskwire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures a Server.
type Options struct {
	// Name and Version identify the server to clients.
	Name, Version string
	// Instructions, if set, are sent to clients at initialization.
	Instructions string
	// Logger receives server diagnostics (on stderr in the command).
	Logger *slog.Logger
	// NotificationsPerCall bounds the notifications one guest call may
	// send to its client, all kinds together (progress, log, resource
	// updated, elicitation complete). Default 100; the rest are dropped, and the
	// first drop is logged.
	NotificationsPerCall int
	// StateKey signs the requestState of multi round-trip results. Servers
	// behind one load balancer need the same key; empty means a random key
	// for this process.
	StateKey []byte
	// Audit, if set, records every call and every denial (see package
	// audit); it is also put in each call's context for the sandbox's
	// guards. Nil records nothing.
	Audit *audit.Log
	// PolicyFacts tells the policies ([server.policy], SetPolicy) what is
	// known of each plugin beyond the plugin itself: its signature state.
	// nil: every plugin counts as unsigned.
	PolicyFacts *entity.Facts
	// ListTTL is the ttlMs of list results (cache.go); 0, the default, says
	// a list is stale at once. Bounded by MaxCacheTTL.
	ListTTL time.Duration
	// PageSize bounds the items of one list page; 0 means go-sdk's default
	// (1000).
	PageSize int
	// Features are what the plugins provide, known from their exports
	// before they finish compiling; they decide the advertised capabilities.
	Features Features
	// Tasks configures the io.modelcontextprotocol/tasks extension (tasks.go).
	Tasks TaskOptions
	// ListsChanged, if set, re-reads and publishes a plugin's lists after
	// the plugin said they changed (a notify_*_list_changed host call);
	// the server calls it outside the guest call, coalesced, and keeps
	// the plugin open meanwhile. Package lifecycle's catalog sets it.
	ListsChanged func(p *plugin.Plugin)
	// Results, if set, is the policy for the answers of the plugin named
	// (package scrub): known secrets, credentials, hidden characters.
	Results func(plugin string) ResultPolicy
	// Held, if set, says why a declaration clients cannot see is held
	// (host/trust): kind is "tool", "prompt", "resource" or "template".
	// A request naming it gets that message.
	Held func(kind, name string) (string, bool)
}

// Features says which MCP features the server advertises.
type Features struct {
	Tools, Resources, Prompts, Completions bool
	// Skills: a plugin exports list_skills (skills.go).
	Skills bool
}

// Server is an MCP server over a registry.
type Server struct {
	mcp    *mcp.Server
	reg    *registry.Registry
	opts   Options
	logger *slog.Logger

	readyOnce sync.Once
	ready     chan struct{}
	drain     drainState
	load      loadState
	lists     listnotice.State // which list_changed each session gets
	refresh   refresher
	mounts    mounts.Maker // the client's roots, and the mounts they narrow (roots.go)
	subs      subscriptions
	epochs    epochs // requests that may use a plugin a reload retires (reload.go)
	caps      capscache.Cache
	failed    failures
	reloads   atomic.Int32 // hot reloads under way (Reloading)
	stateKey  []byte
	tasks     *taskwire.Methods // nil when tasks are off (tasks.go)

	policies policies     // the Cedar policy set in force (policy.go)
	scopes   atomic.Value // the bearer.Policy RequireScopes applies (skillsView reads it)
	scrubber scrub.Scrubber
}

// ResultPolicy is what is done to one plugin's answers (package scrub):
// known secrets, credentials, hidden characters.
type ResultPolicy = scrub.Policy

// New creates a server. Until Ready is called, tool requests wait, so a
// client that lists tools while plugins are still compiling gets the full
// list rather than an empty one; the handshake itself is answered at once.
func New(reg *registry.Registry, opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "mcpwasm"
	}
	if opts.NotificationsPerCall <= 0 {
		opts.NotificationsPerCall = 100
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{reg: reg, opts: opts, logger: logger, ready: make(chan struct{}), stateKey: opts.StateKey}
	s.mounts.Logger = logger
	s.scrubber = scrub.Scrubber{Policy: opts.Results, Audit: opts.Audit, Logger: logger}
	if len(s.stateKey) == 0 {
		s.stateKey = make([]byte, 32)
		rand.Read(s.stateKey)
	}
	caps := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}
	if opts.Features.Tools {
		caps.Tools = &mcp.ToolCapabilities{ListChanged: true}
	}
	if opts.Features.Resources {
		caps.Resources = &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true}
	}
	if opts.Features.Prompts {
		caps.Prompts = &mcp.PromptCapabilities{ListChanged: true}
	}
	sdkLogger := slog.New((&undeliveredLog{logger: logger}).handler(logger.Handler())) // undelivered.go
	so := &mcp.ServerOptions{Instructions: opts.Instructions, Logger: sdkLogger, Capabilities: caps,
		RootsListChangedHandler: s.rootsChanged, SetCacheable: s.setCacheable, PageSize: max(opts.PageSize, 0)}
	if opts.Features.Completions {
		caps.Completions = &mcp.CompletionCapabilities{}
		so.CompletionHandler = s.complete
	}
	if opts.Features.Resources {
		so.SubscribeHandler, so.UnsubscribeHandler = s.subscribe, s.unsubscribe
	}
	s.setupTasks(caps)
	if opts.Features.Skills {
		skills.Advertise(caps) // skills.go
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, so)
	s.mcp.AddReceivingMiddleware(s.traceRequests, s.codes, s.toolExecution, s.trimInitialize, s.lists.Note, s.waitReady, s.enforcePolicy, s.guestPath, s.taskGate)
	s.mcp.AddSendingMiddleware(s.lists.Filter)
	if s.tasks != nil {
		s.tasks.Add(s.mcp)
	}
	s.serveSkills()
	return s
}

// MCP returns the underlying go-sdk server.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Logger returns the server's logger (Options.Logger).
func (s *Server) Logger() *slog.Logger { return s.logger }

// trimInitialize bounds the initialize params a session keeps before go-sdk
// stores them (package sessiontrim); what it drops it logs at debug.
func (s *Server) trimInitialize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.ServerRequest[*mcp.InitializeParams]); ok && method == "initialize" && r.Params != nil {
			if dropped := sessiontrim.Params(r.Params); len(dropped) > 0 {
				s.logger.DebugContext(ctx, "initialize: kept the session's params within bounds", "dropped", dropped)
			}
		}
		return next(ctx, method, req)
	}
}

// Ready marks the initial load as finished: list requests, and requests
// for something no plugin published, stop waiting.
func (s *Server) Ready() {
	s.readyOnce.Do(func() {
		s.lists.Baseline()
		close(s.ready)
	})
}

// waitReady holds a request until what it needs is published (see load.go):
// a list until the initial load finishes, a request naming a tool, resource
// or prompt until the plugin serving it is published or the load finishes.
// A cancelled request stops waiting.
func (s *Server) waitReady(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list", "resources/list", "resources/templates/list", "prompts/list":
			select {
			case <-s.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case "tools/call", "resources/read", "prompts/get", "completion/complete", "resources/subscribe":
			if err := s.awaitTarget(ctx, method, req); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}

// modernProtocol is the first protocol version without server-to-client
// requests.
const modernProtocol = "2026-07-28"
