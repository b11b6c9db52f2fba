package policy

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/cedar-policy/cedar-go/types"
)

// Entity types and actions of the model (docs/security.md, "Policy"). They
// are part of mcpwasm's stable interface: policies name them.
const (
	TypeUser     types.EntityType = "User"
	TypeGroup    types.EntityType = "Group"
	TypePlugin   types.EntityType = "Plugin"
	TypeTool     types.EntityType = "Tool"
	TypePrompt   types.EntityType = "Prompt"
	TypeResource types.EntityType = "Resource"
	TypeAction   types.EntityType = "Action"
)

// Action is what a request does to a plugin's resource.
type Action string

// The actions: one per MCP method that runs a plugin. resources/subscribe
// (and 2026-07-28's subscriptions/listen) is a read; a task's follow-ups
// and a round trip's retries are the call they continue.
const (
	CallTool     Action = "call_tool"     // tools/call, on a Tool
	ReadResource Action = "read_resource" // resources/read and subscribe, on a Resource
	GetPrompt    Action = "get_prompt"    // prompts/get, on a Prompt
	Complete     Action = "complete"      // completion/complete, on a Prompt or Resource
)

// Principal is who asks: the principal entity User::"<Name>".
type Principal struct {
	// Name is a static token's name or a JWT's subject; StdioName over
	// stdio; AnonymousName over HTTP without authentication.
	Name string
	// Scopes the token carries; Groups the JWT's "groups" claim (each also
	// makes the user a member of Group::"<group>").
	Scopes []string
	Groups []string
	// Claims are the JWT's claims, as entity tags: a string claim as it is,
	// any other its JSON text.
	Claims map[string]any
	// Issuer is the JWT's issuer ("" otherwise).
	Issuer string
	// Auth is how it authenticated: "static", "jwt" or "none".
	Auth string
	// Transport is "stdio" or "http".
	Transport string
}

// The principals of requests without a token.
const (
	StdioName     = "stdio"
	AnonymousName = "anonymous"
)

// Plugin is what is known of a plugin: its entity Plugin::"<Name>" and the
// attributes every resource it serves carries too.
type Plugin struct {
	Name string
	// Source is where it came from: a file path, an oci:// or https:// source.
	Source string
	// Digest is "sha256:<hex>" of its module.
	Digest string
	// Signature is "verified", "unsigned", "not checked" or "none"
	// (an https:// source, pinned by its sha256). A local file is "unsigned".
	Signature string
	// Trust is the plugin's trust state; "" until the trust feature sets it.
	Trust string
}

// Annotations are a tool's MCP annotations, each at the specification's
// default when the tool leaves it out (readOnly false, destructive true,
// idempotent false, openWorld true).
type Annotations struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// DefaultAnnotations are those of a tool that declares none.
var DefaultAnnotations = Annotations{Destructive: true, OpenWorld: true}

// ToolAnnotations fills in the hints a tool left out (nil) with the MCP
// specification's defaults. readOnly and idempotent are plain booleans in
// go-sdk's mcp.ToolAnnotations, false when left out, as the default is.
func ToolAnnotations(readOnly bool, destructive *bool, idempotent bool, openWorld *bool) Annotations {
	a := Annotations{ReadOnly: readOnly, Idempotent: idempotent, Destructive: true, OpenWorld: true}
	if destructive != nil {
		a.Destructive = *destructive
	}
	if openWorld != nil {
		a.OpenWorld = *openWorld
	}
	return a
}

// Target is the resource of a request: a tool, prompt or resource of a
// plugin (its parent).
type Target struct {
	// Type is TypeTool, TypePrompt or TypeResource.
	Type types.EntityType
	// Name is the exposed name (a tool's or prompt's, with its plugin
	// prefix) or a resource's URI; it is the entity's id.
	Name string
	// Declared is the name as the plugin declared it (a resource: its URI).
	Declared string
	// Template is the URI template a resource was read through, or the
	// template a completion names ("" otherwise).
	Template string
	// Annotations of a tool (ToolAnnotations gives the specification's
	// defaults for hints left out).
	Annotations Annotations
	Plugin      Plugin
}

// Request is one request to authorise.
type Request struct {
	Principal *Principal
	Action    Action
	Target    Target
	// Arguments is the call's JSON arguments (tools/call), or StringArgs
	// those of a prompts/get or the arguments a completion was given.
	Arguments  json.RawMessage
	StringArgs map[string]string
	// Time is when it was asked; context.hour and context.weekday are in
	// its location (the server passes time.Now(), the local zone).
	Time time.Time
	// Protocol is the MCP protocol version, Session the session id.
	Protocol, Session string
}

func strSet(ss []string) types.Set {
	vs := make([]types.Value, len(ss))
	for i, s := range ss {
		vs[i] = types.String(s)
	}
	return types.NewSet(vs...)
}

// principalEntity builds User::"<name>", a member of its groups.
func principalEntity(p *Principal) types.Entity {
	if p == nil {
		p = &Principal{Name: StdioName, Auth: "none", Transport: "stdio"}
	}
	uid := types.NewEntityUID(TypeUser, types.String(p.Name))
	groups := make([]types.EntityUID, len(p.Groups))
	for i, g := range p.Groups {
		groups[i] = types.NewEntityUID(TypeGroup, types.String(g))
	}
	tags := make(types.RecordMap, len(p.Claims))
	for k, v := range p.Claims {
		if s, ok := v.(string); ok {
			tags[types.String(k)] = types.String(s)
		} else if b, err := json.Marshal(v); err == nil {
			tags[types.String(k)] = types.String(b)
		}
	}
	return types.Entity{UID: uid, Parents: types.NewEntityUIDSet(groups...), Attributes: types.NewRecord(types.RecordMap{
		"name":           types.String(p.Name),
		"scopes":         strSet(p.Scopes),
		"groups":         strSet(p.Groups),
		"issuer":         types.String(p.Issuer),
		"authentication": types.String(p.Auth),
		"transport":      types.String(p.Transport),
	}), Tags: types.NewRecord(tags)}
}

func pluginAttrs(rm types.RecordMap, p Plugin) {
	rm["plugin"] = types.String(p.Name)
	rm["source"] = types.String(p.Source)
	rm["digest"] = types.String(p.Digest)
	rm["signature"] = types.String(p.Signature)
	rm["trust"] = types.String(p.Trust)
}

// targetEntity builds the resource entity and its plugin.
func targetEntity(t Target) (types.Entity, types.Entity) {
	puid := types.NewEntityUID(TypePlugin, types.String(t.Plugin.Name))
	pm := types.RecordMap{"name": types.String(t.Plugin.Name)}
	pluginAttrs(pm, t.Plugin)
	delete(pm, "plugin")
	rm := types.RecordMap{"name": types.String(t.Name), "declared": types.String(t.Declared)}
	pluginAttrs(rm, t.Plugin)
	switch t.Type {
	case TypeTool:
		a := t.Annotations
		rm["annotations"] = types.NewRecord(types.RecordMap{
			"readOnlyHint": types.Boolean(a.ReadOnly), "destructiveHint": types.Boolean(a.Destructive),
			"idempotentHint": types.Boolean(a.Idempotent), "openWorldHint": types.Boolean(a.OpenWorld),
		})
	case TypeResource:
		rm["template"] = types.String(t.Template)
	}
	return types.Entity{UID: types.NewEntityUID(t.Type, types.String(t.Name)), Parents: types.NewEntityUIDSet(puid),
			Attributes: types.NewRecord(rm)},
		types.Entity{UID: puid, Attributes: types.NewRecord(pm)}
}

// entities is the few entities of one request; a linear scan beats a map.
type entities []types.Entity

// Get returns the entity with the given UID.
func (es entities) Get(uid types.EntityUID) (types.Entity, bool) {
	for _, e := range es {
		if e.UID == uid {
			return e, true
		}
	}
	return types.Entity{}, false
}

// targetCache keeps the entities built for targets: a tool's entity is the
// same on every call until its plugin changes, and building one (records
// are hashed) is a third of a decision's cost.
type targetCache struct {
	mu sync.RWMutex
	m  map[Target][2]types.Entity
}

// maxTargets bounds the cache; past it, it starts over.
const maxTargets = 4096

func (c *targetCache) get(t Target) (types.Entity, types.Entity) {
	c.mu.RLock()
	e, ok := c.m[t]
	c.mu.RUnlock()
	if ok {
		return e[0], e[1]
	}
	r, p := targetEntity(t)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxTargets {
		c.m = map[Target][2]types.Entity{}
	}
	c.m[t] = [2]types.Entity{r, p}
	c.mu.Unlock()
	return r, p
}
