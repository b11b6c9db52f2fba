package server

import (
	"context"
	"slices"
	"time"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/policy"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/skills"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SkillsExtension is the skills extension's identifier (SEP-2640), under
// capabilities.extensions; package skills serves its methods.
const SkillsExtension = skills.Extension

// serveSkills adds the extension's methods when a plugin exports
// list_skills (New advertises it).
func (s *Server) serveSkills() {
	if !s.opts.Features.Skills {
		return
	}
	ss := &skills.Server{Catalog: s.reg, Ready: s.ready, TTLMs: clampTTL(int(s.opts.ListTTL / time.Millisecond))}
	ss.Add(s.mcp)
	s.mcp.AddReceivingMiddleware(s.skillsView)
}

// skillsView hands the skills methods what the request may see: a token
// lacking the scope of a skill's plugin does not see the skill, nor does a
// principal the policies would not list its SKILL.md to (as resources/list).
func (s *Server) skillsView(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !slices.Contains(skills.Methods, method) {
			return next(ctx, method, req)
		}
		info := tokenInfo(req)
		scopes, _ := s.scopes.Load().(bearer.Policy)
		set := s.policies.set.Load()
		base := s.policyRequest(req)
		v := skills.View{Private: info != nil, Visible: func(sk *registry.Skill) bool {
			if info != nil && !scopes.Empty() && scopes.Missing(info, sk.Plugin.Name(), "") != "" {
				return false
			}
			if set == nil {
				return true
			}
			q := base
			q.Action, q.Target = policy.ReadResource, s.opts.PolicyFacts.Resource(sk.URI, "", sk.Plugin)
			return set.Listable(q)
		}}
		return next(skills.WithView(ctx, v), method, req)
	}
}
