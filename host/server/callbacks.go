package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callbacks delivers one guest call's notifications to its client session.
type callbacks struct {
	srv     *Server
	session *mcp.ServerSession
	token   any
	plugin  *plugin.Plugin
	logger  *slog.Logger
	tool    string
	// caps are the client's capabilities for this request (per request in
	// 2026-07-28, per session before).
	caps *mcp.ClientCapabilities
	// roundTrip, set for 2026-07-28 tool calls, answers client requests by
	// multi round-trip instead of server-to-client requests.
	roundTrip *roundTrip

	mu      sync.Mutex
	left    int // notifications this call may still send
	dropped int
	refused map[string]bool // capabilities the guest asked for and the client lacks
}

// spend takes one notification from the call's budget, shared by every
// kind that reaches the client (progress, log, resource update,
// elicitation complete; list changes are coalesced into one refresh). It
// reports false, and logs the first time, once it is spent.
func (c *callbacks) spend(kind string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left <= 0 {
		c.dropped++
		if c.dropped == 1 {
			c.logger.Warn("guest notifications over the per-call limit are dropped", "tool", c.tool, "kind", kind)
		}
		return false
	}
	c.left--
	return true
}

func (c *callbacks) Progress(ctx context.Context, payload json.RawMessage) error {
	if c.token == nil || c.session == nil {
		return nil // the client asked for no progress
	}
	var p struct {
		Progress float64 `json:"progress"`
		Total    float64 `json:"total"`
		Message  string  `json:"message"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return fmt.Errorf("notify_progress: %w", err)
	}
	if !c.spend("progress") {
		return nil
	}
	return c.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: c.token, Progress: p.Progress, Total: p.Total, Message: p.Message,
	})
}

func (c *callbacks) Log(ctx context.Context, payload json.RawMessage) error {
	if c.session == nil {
		return nil
	}
	var p struct {
		Level  mcp.LoggingLevel `json:"level"`
		Logger string           `json:"logger"`
		Data   any              `json:"data"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return fmt.Errorf("notify_logging_message: %w", err)
	}
	if p.Level == "" {
		p.Level = "info"
	}
	if !c.spend("log") {
		return nil
	}
	return c.session.Log(ctx, &mcp.LoggingMessageParams{Level: p.Level, Logger: p.Logger, Data: p.Data})
}

// Request makes a server-to-client request on the guest's behalf (or, in
// 2026-07-28, answers it by round trip). It returns when the client answers
// or the call's context ends.
func (c *callbacks) Request(ctx context.Context, function string, payload json.RawMessage) (json.RawMessage, error) {
	if function == abi.HostFunctionRequestInput {
		return c.requestInput(ctx, payload)
	}
	if name := capabilityOf(function); name == "" {
		return nil, fmt.Errorf("unknown host function %q", function)
	} else if !hasCapability(c.capabilities(), name) {
		return nil, c.refuse(name)
	}
	if c.roundTrip != nil {
		return c.roundTrip.answer(function, payload)
	}
	req, err := inputRequest(function, payload)
	if err != nil {
		return nil, err
	}
	res, err := c.ask(ctx, req)
	if err != nil {
		return nil, explain(function, err)
	}
	return res, nil
}

// explain turns go-sdk's errors for impossible requests into sentences a
// guest (and the model reading its error) can act on.
func explain(function string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "stateless"):
		return fmt.Errorf("%s is not available: the server runs in stateless HTTP mode, which cannot send requests to the client", function)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: the call's time limit passed while waiting for the client", function)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: the call was cancelled", function)
	}
	return fmt.Errorf("%s failed: %v", function, err)
}

// Notify handles resource updates, list changes and completed URL
// elicitations. A plugin may report updates only to the resources it
// declared (or that match its templates).
func (c *callbacks) Notify(ctx context.Context, function string, payload json.RawMessage) error {
	switch function {
	case "notify_resource_updated", "notify_url_elicitation_completed":
		if !c.spend(function) {
			return nil
		}
	}
	switch function {
	case "notify_resource_updated":
		var p struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(payload, &p); err != nil || p.URI == "" {
			return fmt.Errorf("notify_resource_updated: want {\"uri\": ...}")
		}
		if owner, ok := c.srv.reg.ResourceOwner(p.URI); !ok || owner != c.plugin {
			c.logger.Warn("dropping an update for a resource the plugin did not declare", "tool", c.tool, "uri", p.URI)
			return fmt.Errorf("notify_resource_updated: %q is not a resource this plugin declared", p.URI)
		}
		return c.srv.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: p.URI})
	case "notify_url_elicitation_completed":
		var p struct {
			ElicitationID string `json:"elicitationId"`
		}
		if err := json.Unmarshal(payload, &p); err != nil || p.ElicitationID == "" {
			return fmt.Errorf("notify_url_elicitation_completed: want {\"elicitationId\": ...}")
		}
		if c.session == nil {
			return nil // stateless HTTP: no session to tell
		}
		return c.session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: p.ElicitationID})
	case "notify_tool_list_changed", "notify_resource_list_changed", "notify_prompt_list_changed":
		if c.plugin != nil {
			c.srv.requestRefresh(c.plugin)
		}
		return nil
	}
	return fmt.Errorf("unknown host function %q", function)
}

// callbacksFor makes the callbacks of one guest call.
func (s *Server) callbacksFor(session *mcp.ServerSession, token any, p *plugin.Plugin, what string) *callbacks {
	return &callbacks{srv: s, session: session, token: token, plugin: p,
		left: s.opts.NotificationsPerCall, logger: s.logger, tool: what}
}
