// Package skills serves MCP's io.modelcontextprotocol/skills extension
// (SEP-2640) as go-sdk custom methods: skills/list, skills/get and
// resources/directory/read. The plugins' skills are in the registry
// (registry/skill.go), their files ordinary resources that resources/list
// and resources/read serve, so scopes and policies gate a read as any
// resource's. Which skills a request may see is package server's
// business: it puts a View in the request's context (WithView).
package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Extension is the extension's identifier, under capabilities.extensions.
const Extension = "io.modelcontextprotocol/skills"

// PageSize bounds the entries of one skills/list or
// resources/directory/read page.
const PageSize = 100

// Methods lists the extension's methods.
var Methods = []string{"skills/list", "skills/get", "resources/directory/read"}

// Catalog is where the skills are read: the registry.
type Catalog interface {
	Skills() []*registry.Skill
	Skill(uri string) (*registry.Skill, bool)
	SkillDirectory(uri string) (children []*mcp.Resource, owner *registry.Skill, ok bool)
}

// View is what one request may see: Visible (nil: every skill) says
// whether a skill is listed and served to it; Private marks its results
// cacheScope "private" (an authenticated request).
type View struct {
	Visible func(*registry.Skill) bool
	Private bool
}

type viewKey struct{}

// WithView hands a request's View to the methods, which go-sdk gives only
// their params.
func WithView(ctx context.Context, v View) context.Context {
	return context.WithValue(ctx, viewKey{}, v)
}

func viewOf(ctx context.Context) View {
	v, _ := ctx.Value(viewKey{}).(View)
	return v
}

func (v View) sees(sk *registry.Skill) bool { return v.Visible == nil || v.Visible(sk) }

// Server serves the methods over a catalog.
type Server struct {
	Catalog Catalog
	// Ready is closed when the initial load is done; requests wait for it.
	Ready <-chan struct{}
	// TTLMs is the ttlMs of list and get results (already bounded).
	TTLMs int
}

// Advertise sets the extension, with directoryRead, in caps; it needs the
// resources capability, so it sets it.
func Advertise(caps *mcp.ServerCapabilities) {
	if caps.Resources == nil {
		caps.Resources = &mcp.ResourceCapabilities{ListChanged: true}
	}
	if caps.Extensions == nil {
		caps.Extensions = map[string]any{}
	}
	caps.Extensions[Extension] = map[string]any{"directoryRead": true}
}

// Add adds the extension's methods to a go-sdk server.
func (s *Server) Add(m *mcp.Server) {
	mcp.AddReceivingCustomMethod(m, "skills/list", s.list)
	mcp.AddReceivingCustomMethod(m, "skills/get", s.get)
	mcp.AddReceivingCustomMethod(m, "resources/directory/read", s.directory)
}

// params are the params of skills/list, skills/get and
// resources/directory/read.
type params struct {
	mcp.ParamsBase
	URI    string `json:"uri,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// resource is one file of a skill entry.
type resource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

// entry is a Skill of the extension's schema.
type entry struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   []resource      `json:"resources"`
}

type listResult struct {
	mcp.ResultBase
	ResultType string  `json:"resultType"`
	Skills     []entry `json:"skills"`
	NextCursor string  `json:"nextCursor,omitempty"`
	TTLMs      int     `json:"ttlMs"`
	CacheScope string  `json:"cacheScope"`
}

type getResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Skill      entry  `json:"skill"`
	TTLMs      int    `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
}

type directoryResult struct {
	mcp.ResultBase
	ResultType string          `json:"resultType"`
	Resources  []*mcp.Resource `json:"resources"`
	NextCursor string          `json:"nextCursor,omitempty"`
}

func entryOf(sk *registry.Skill) entry {
	e := entry{URI: sk.URI, Frontmatter: sk.Frontmatter}
	for _, f := range sk.Files {
		e.Resources = append(e.Resources, resource{URI: f.URI, Digest: f.Digest, Size: len(f.Data)})
	}
	return e
}

// cache is the ttlMs and cacheScope of a result: the list TTL, private for
// an authenticated request.
func (s *Server) cache(v View) (int, string) {
	if v.Private {
		return s.TTLMs, "private"
	}
	return s.TTLMs, "public"
}

// wait holds a request until the initial load is done.
func (s *Server) wait(ctx context.Context) error {
	select {
	case <-s.Ready:
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
	hi = min(lo+PageSize, n)
	if hi < n {
		next = strconv.Itoa(hi)
	}
	return lo, hi, next, nil
}

func (s *Server) list(ctx context.Context, _ *mcp.ServerSession, p *params) (*listResult, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	v := viewOf(ctx)
	var all []*registry.Skill
	for _, sk := range s.Catalog.Skills() {
		if v.sees(sk) {
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
	res := &listResult{ResultType: "complete", Skills: []entry{}, NextCursor: next}
	for _, sk := range all[lo:hi] {
		res.Skills = append(res.Skills, entryOf(sk))
	}
	res.TTLMs, res.CacheScope = s.cache(v)
	return res, nil
}

func (s *Server) get(ctx context.Context, _ *mcp.ServerSession, p *params) (*getResult, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	if p == nil || p.URI == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "skills/get needs the uri of a skill's SKILL.md"}
	}
	v := viewOf(ctx)
	sk, ok := s.Catalog.Skill(p.URI)
	if !ok || !v.sees(sk) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no skill is served at %s", p.URI)}
	}
	res := &getResult{ResultType: "complete", Skill: entryOf(sk)}
	res.TTLMs, res.CacheScope = s.cache(v)
	return res, nil
}

func (s *Server) directory(ctx context.Context, _ *mcp.ServerSession, p *params) (*directoryResult, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	if p == nil || p.URI == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resources/directory/read needs a uri"}
	}
	children, owner, ok := s.Catalog.SkillDirectory(p.URI)
	if !ok || !viewOf(ctx).sees(owner) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not a directory resource", p.URI)}
	}
	lo, hi, next, err := page(len(children), p.Cursor)
	if err != nil {
		return nil, err
	}
	return &directoryResult{ResultType: "complete", Resources: children[lo:hi], NextCursor: next}, nil
}
