package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/policy"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Skills: MCP's io.modelcontextprotocol/skills extension (SEP-2640). The
// plugins' skills are in the registry (registry/skill.go), their files
// ordinary resources that resources/list and resources/read serve (so
// scopes and policies gate a read as any resource's). This file adds the
// extension's three methods as go-sdk custom methods, as tasks.go does:
// skills/list, skills/get and resources/directory/read. A token lacking
// the scope of a skill's plugin does not see the skill in any of them.

// SkillsExtension is the extension's identifier, under capabilities.extensions.
const SkillsExtension = "io.modelcontextprotocol/skills"

// skillsPageSize bounds the entries of one skills/list or
// resources/directory/read page.
const skillsPageSize = 100

// setupSkills advertises the extension, with directoryRead, when a plugin
// exports list_skills; it needs the resources capability, so it sets it.
func (s *Server) setupSkills(caps *mcp.ServerCapabilities) {
	if !s.opts.Features.Skills {
		return
	}
	if caps.Resources == nil {
		caps.Resources = &mcp.ResourceCapabilities{ListChanged: true}
	}
	if caps.Extensions == nil {
		caps.Extensions = map[string]any{}
	}
	caps.Extensions[SkillsExtension] = map[string]any{"directoryRead": true}
}

// serveSkills adds the extension's methods.
func (s *Server) serveSkills() {
	if !s.opts.Features.Skills {
		return
	}
	mcp.AddReceivingCustomMethod(s.mcp, "skills/list", s.skillsList)
	mcp.AddReceivingCustomMethod(s.mcp, "skills/get", s.skillsGet)
	mcp.AddReceivingCustomMethod(s.mcp, "resources/directory/read", s.directoryRead)
	s.mcp.AddReceivingMiddleware(s.skillsToken)
}

type skillsTokenKey struct{}

type skillsPolicyKey struct{}

// skillsToken hands the request's token, and the Cedar policies' view of
// it, to the skills methods, which go-sdk gives only their params.
func (s *Server) skillsToken(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "skills/list", "skills/get", "resources/directory/read":
			if info := tokenInfo(req); info != nil {
				ctx = context.WithValue(ctx, skillsTokenKey{}, info)
			}
			if set := s.policies.set.Load(); set != nil {
				base := s.policyRequest(req)
				readable := func(sk *registry.Skill) bool {
					q := base
					q.Action, q.Target = policy.ReadResource, s.opts.PolicyFacts.Resource(sk.URI, "", sk.Plugin)
					return set.Listable(q)
				}
				ctx = context.WithValue(ctx, skillsPolicyKey{}, readable)
			}
		}
		return next(ctx, method, req)
	}
}

// skillVisible reports whether the request may see the skill: its token
// (if any) has the scope of the plugin serving it, and the policies (if
// any) would list its SKILL.md, as resources/list does.
func (s *Server) skillVisible(ctx context.Context, sk *registry.Skill) bool {
	info, _ := ctx.Value(skillsTokenKey{}).(*auth.TokenInfo)
	p, _ := s.scopes.Load().(bearer.Policy)
	if info != nil && !p.Empty() && p.Missing(info, sk.Plugin.Name(), "") != "" {
		return false
	}
	readable, _ := ctx.Value(skillsPolicyKey{}).(func(*registry.Skill) bool)
	return readable == nil || readable(sk)
}

// skillsParams are the params of skills/list, skills/get and
// resources/directory/read.
type skillsParams struct {
	mcp.ParamsBase
	URI    string `json:"uri,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// skillResource is one file of a skill entry.
type skillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

// skillEntry is a Skill of the extension's schema.
type skillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   []skillResource `json:"resources"`
}

type listSkillsResult struct {
	mcp.ResultBase
	ResultType string       `json:"resultType"`
	Skills     []skillEntry `json:"skills"`
	NextCursor string       `json:"nextCursor,omitempty"`
	TTLMs      int          `json:"ttlMs"`
	CacheScope string       `json:"cacheScope"`
}

type getSkillResult struct {
	mcp.ResultBase
	ResultType string     `json:"resultType"`
	Skill      skillEntry `json:"skill"`
	TTLMs      int        `json:"ttlMs"`
	CacheScope string     `json:"cacheScope"`
}

type directoryResult struct {
	mcp.ResultBase
	ResultType string          `json:"resultType"`
	Resources  []*mcp.Resource `json:"resources"`
	NextCursor string          `json:"nextCursor,omitempty"`
}

func entryOf(sk *registry.Skill) skillEntry {
	e := skillEntry{URI: sk.URI, Frontmatter: sk.Frontmatter}
	for _, f := range sk.Files {
		e.Resources = append(e.Resources, skillResource{URI: f.URI, Digest: f.Digest, Size: len(f.Data)})
	}
	return e
}

// cacheFields are the ttlMs and cacheScope of a skills result: the list
// TTL, private for an authenticated request.
func (s *Server) cacheFields(ctx context.Context) (int, string) {
	scope := scopePublic
	if ctx.Value(skillsTokenKey{}) != nil {
		scope = scopePrivate
	}
	return clampTTL(int(s.opts.ListTTL / time.Millisecond)), scope
}

// awaitLoad holds a skills request until the initial load is done.
func (s *Server) awaitLoad(ctx context.Context) error {
	select {
	case <-s.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// page cuts n items at cursor (a decimal offset) into one page.
func page(n int, cursor string) (lo, hi int, next string, err error) {
	if cursor != "" {
		if lo, err = strconv.Atoi(cursor); err != nil || lo < 0 || lo > n {
			return 0, 0, "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid cursor %q", cursor)}
		}
	}
	hi = min(lo+skillsPageSize, n)
	if hi < n {
		next = strconv.Itoa(hi)
	}
	return lo, hi, next, nil
}

func (s *Server) skillsList(ctx context.Context, _ *mcp.ServerSession, p *skillsParams) (*listSkillsResult, error) {
	if err := s.awaitLoad(ctx); err != nil {
		return nil, err
	}
	var all []*registry.Skill
	for _, sk := range s.reg.Skills() {
		if s.skillVisible(ctx, sk) {
			all = append(all, sk)
		}
	}
	cursor := ""
	if p != nil {
		cursor = p.Cursor
	}
	lo, hi, next, err := page(len(all), cursor)
	if err != nil {
		return nil, err
	}
	res := &listSkillsResult{ResultType: "complete", Skills: []skillEntry{}, NextCursor: next}
	for _, sk := range all[lo:hi] {
		res.Skills = append(res.Skills, entryOf(sk))
	}
	res.TTLMs, res.CacheScope = s.cacheFields(ctx)
	return res, nil
}

func (s *Server) skillsGet(ctx context.Context, _ *mcp.ServerSession, p *skillsParams) (*getSkillResult, error) {
	if err := s.awaitLoad(ctx); err != nil {
		return nil, err
	}
	if p == nil || p.URI == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "skills/get needs the uri of a skill's SKILL.md"}
	}
	sk, ok := s.reg.Skill(p.URI)
	if !ok || !s.skillVisible(ctx, sk) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no skill is served at %s", p.URI)}
	}
	res := &getSkillResult{ResultType: "complete", Skill: entryOf(sk)}
	res.TTLMs, res.CacheScope = s.cacheFields(ctx)
	return res, nil
}

func (s *Server) directoryRead(ctx context.Context, _ *mcp.ServerSession, p *skillsParams) (*directoryResult, error) {
	if err := s.awaitLoad(ctx); err != nil {
		return nil, err
	}
	if p == nil || p.URI == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resources/directory/read needs a uri"}
	}
	children, owner, ok := s.reg.SkillDirectory(p.URI)
	if !ok || !s.skillVisible(ctx, owner) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not a directory resource", p.URI)}
	}
	lo, hi, next, err := page(len(children), p.Cursor)
	if err != nil {
		return nil, err
	}
	return &directoryResult{ResultType: "complete", Resources: children[lo:hi], NextCursor: next}, nil
}
