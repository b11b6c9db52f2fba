package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"github.com/mcpwasm/mcpwasm/host/policy"
	"github.com/mcpwasm/mcpwasm/host/policy/entity"
	"github.com/mcpwasm/mcpwasm/host/server/internal/reach"
	"github.com/mcpwasm/mcpwasm/host/server/internal/taskwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// policies holds the Cedar policy set in force ([server.policy]); nil
// when none is configured, which costs a request one atomic load.
type policies struct {
	set atomic.Pointer[policy.Set]
}

// SetPolicy puts a policy set in force from the next request on, for
// every session, connected ones included; nil lifts the policies. See
// docs/security.md, "Policy".
func (s *Server) SetPolicy(set *policy.Set) { s.policies.set.Store(set) }

// Policy is the policy set in force, nil when none.
func (s *Server) Policy() *policy.Set { return s.policies.set.Load() }

// policyCheck is one decision a request needs: what it reaches and the
// policy request for it.
type policyCheck struct {
	what, plugin string
	req          policy.Request
}

// enforcePolicy decides every call, read, subscription, get, completion
// and task request by the policies before it goes further (a denial is
// CodeForbidden naming the deciding policy and its @reason, audited with
// the deciding policy ids), and filters the lists to what the principal
// may use. It sits after waitReady, so the target is loaded when it is
// looked up, and before taskGate, so a call that becomes a task is decided
// as a call. Scopes (RequireScopes) are checked on their own: both must
// allow.
func (s *Server) enforcePolicy(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		set := s.policies.set.Load()
		if set == nil {
			return next(ctx, method, req)
		}
		switch method {
		case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			return s.policyList(set, req, res), nil
		}
		checks := s.policyChecks(ctx, method, req)
		for _, c := range checks {
			d := set.Authorize(c.req)
			if err := s.policyDecided(method, c, d); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}

// policyDecided audits a decision and turns a denial into the client's
// error. Denials are logged at debug level only: the audit log and the
// metrics keep them, and a client must not flood the log with them.
func (s *Server) policyDecided(method string, c policyCheck, d policy.Decision) error {
	p := c.req.Principal
	// A resource's name is the client's URI: clipped as the call events' are.
	e := audit.Event{Kind: audit.KindPolicy, Session: c.req.Session, Principal: p.Name, Plugin: c.plugin,
		Tool: clip.String(c.req.Target.Name, clip.Audit), Method: method, Decision: audit.DecisionAllow, Policies: d.Policies}
	if d.Allow {
		s.opts.Audit.Record(e)
		return nil
	}
	msg := d.Message(clip.String(p.Name, clip.Log), c.req.Action, clip.String(c.what, clip.Audit))
	e.Decision, e.Reason = audit.DecisionDeny, msg
	s.opts.Audit.Record(e)
	args := []any{"principal", p.Name, "method", method, "policies", d.Policies, "reason", msg}
	if len(d.Errors) > 0 {
		args = append(args, "errors", d.Errors)
	}
	s.logger.Debug("request refused by policy", args...)
	return &jsonrpc.Error{Code: CodeForbidden, Message: msg}
}

// policyRequest is the part of a policy request every check of req shares.
func (s *Server) policyRequest(req mcp.Request) policy.Request {
	transport := "stdio"
	if overHTTP(req) {
		transport = "http"
	}
	r := policy.Request{Principal: entity.Principal(tokenInfo(req), transport), Time: time.Now(), Protocol: protocolOf(req)}
	if ss := req.GetSession(); ss != nil {
		if sv, ok := ss.(*mcp.ServerSession); ok {
			r.Session = sv.ID()
			if r.Protocol == "" {
				if ip := sv.InitializeParams(); ip != nil {
					r.Protocol = ip.ProtocolVersion
				}
			}
		}
	}
	return r
}

// policyChecks lists the decisions a request needs: one for each
// declaration it reaches (package reach), or for a tasks/* request the
// tool its task calls.
func (s *Server) policyChecks(ctx context.Context, method string, req mcp.Request) []policyCheck {
	base := s.policyRequest(req)
	switch method {
	case "tasks/get", "tasks/update", "tasks/cancel":
		return s.taskCheck(ctx, base, req)
	}
	var out []policyCheck
	for _, t := range reach.Of(s.reg, req) {
		q := base
		q.Action, q.Target = s.policyTarget(t)
		q.Arguments, q.StringArgs = t.Args, t.StringArgs
		out = append(out, policyCheck{what: t.What, plugin: t.Plugin.Name(), req: q})
	}
	return out
}

// policyTarget is the policies' action and target for what a request
// reaches.
func (s *Server) policyTarget(t reach.Target) (policy.Action, policy.Target) {
	facts := s.opts.PolicyFacts
	switch {
	case t.Tool != nil:
		return policy.CallTool, facts.Tool(t.Tool)
	case t.Prompt != nil && t.Complete:
		return policy.Complete, facts.Prompt(t.Prompt)
	case t.Prompt != nil:
		return policy.GetPrompt, facts.Prompt(t.Prompt)
	case t.Complete:
		return policy.Complete, facts.Resource(t.URI, t.Template, t.Plugin)
	}
	return policy.ReadResource, facts.Resource(t.URI, t.Template, t.Plugin)
}

// taskCheck decides a tasks/* request as the tools/call it continues, on
// the policies in force now: the task's tool and arguments, from its
// record. A task that is not found is left to the handler.
func (s *Server) taskCheck(ctx context.Context, base policy.Request, req mcp.Request) []policyCheck {
	p, ok := req.GetParams().(*taskwire.Params)
	if !ok || s.tasks == nil {
		return nil
	}
	r, err := s.tasks.Tasks.Get(ctx, principalOf(req), p.TaskID)
	if err != nil {
		return nil
	}
	var spec taskSpec
	if json.Unmarshal(r.Spec, &spec) != nil {
		return nil
	}
	t, ok := s.reg.Lookup(spec.Tool)
	if !ok {
		return nil
	}
	q := base
	q.Action, q.Target, q.Arguments = policy.CallTool, s.opts.PolicyFacts.Tool(t), spec.Args
	return []policyCheck{{what: fmt.Sprintf("tool %q (task %q)", t.Def.Name, p.TaskID), plugin: t.Plugin.Name(), req: q}}
}

// policyList drops from a list what the principal may not use
// (policy.Set.Listable: decided without arguments).
func (s *Server) policyList(set *policy.Set, req mcp.Request, res mcp.Result) mcp.Result {
	base := s.policyRequest(req)
	return s.filterList(res, func(t reach.Target) bool {
		q := base
		q.Action, q.Target = s.policyTarget(t)
		return set.Listable(q)
	})
}

// overHTTP reports whether a request came over HTTP: it carries the HTTP
// request's headers, where stdio's (and in-process transports') carry at
// most the ones mcpwasm's transport adds itself (Mcp-Wasm-*).
func overHTTP(req mcp.Request) bool {
	ex := req.GetExtra()
	if ex == nil {
		return false
	}
	for k := range ex.Header {
		if !strings.HasPrefix(k, "Mcp-Wasm-") {
			return true
		}
	}
	return false
}
