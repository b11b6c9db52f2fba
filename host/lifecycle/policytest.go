package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/cedar-policy/cedar-go/types"
	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/policy"
	"github.com/mcpwasm/mcpwasm/host/policy/entity"
)

// PolicyTestOptions is one request for `mcpwasm policy test` to decide.
type PolicyTestOptions struct {
	// Args, Config, Limits, Remote, NoPrefix and LoadTimeout are as for
	// ValidateOptions: the plugins are loaded (not served) to know their
	// tools. Files and Schema are policy files to use besides the config's.
	Args        []string
	Config      *config.Config
	Limits      Limits
	Remote      RemoteOptions
	NoPrefix    bool
	LoadTimeout time.Duration
	Files       []string
	Schema      string

	// Principal, Action and what the request names: exactly one of Tool,
	// Prompt or Resource. Complete makes it a completion of the prompt or
	// resource.
	Principal policy.Principal
	Tool      string
	Prompt    string
	Resource  string
	Complete  bool
	// Arguments is the request's JSON arguments (a prompt's: an object of
	// strings).
	Arguments string
	// Time, Protocol and Session are the context's; a zero Time is now.
	Time              time.Time
	Protocol, Session string
	// Plugin, Signature and Annotations describe a target that no loaded
	// plugin serves (no plugins given).
	Plugin, Signature, Annotations string
}

// PolicyTest decides one request as serve would, without serving: the
// policies of the config (and Files), the plugins it names loaded for
// their tools' attributes. It prints the decision and the policies that
// made it, and returns 0 when allowed, 1 when denied, 2 for a usage error.
func PolicyTest(o PolicyTestOptions, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "mcpwasm policy test:", err)
		return code
	}
	cfg := o.Config
	if cfg == nil {
		cfg = &config.Config{}
	}
	files, schema := cfg.Server.Policy.Files, cfg.Server.Policy.Schema
	files = append(files, o.Files...)
	if o.Schema != "" {
		schema = o.Schema
	}
	if len(files) == 0 {
		return fail(2, errors.New("no policy: give --config with [server.policy] files, or --policy FILE"))
	}
	set, err := policy.Load(files, schema)
	if err != nil {
		return fail(1, err)
	}
	n := 0
	for _, s := range []string{o.Tool, o.Prompt, o.Resource} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return fail(2, errors.New("name exactly one of --tool, --prompt, --resource"))
	}
	req := policy.Request{Principal: &o.Principal, Time: o.Time, Protocol: o.Protocol, Session: o.Session}
	if req.Time.IsZero() {
		req.Time = time.Now()
	}
	target, err := o.target()
	if err != nil {
		return fail(2, err)
	}
	req.Target = target
	_, _, req.Action = o.kind()
	if o.Complete {
		req.Action = policy.Complete
	}
	if o.Prompt != "" && !o.Complete && o.Arguments != "" {
		var m map[string]string
		if err := json.Unmarshal([]byte(o.Arguments), &m); err != nil {
			return fail(2, fmt.Errorf("--args: a prompt's arguments are an object of strings: %v", err))
		}
		req.StringArgs = m
	} else if o.Arguments != "" {
		if !json.Valid([]byte(o.Arguments)) {
			return fail(2, errors.New("--args is not valid JSON"))
		}
		req.Arguments = json.RawMessage(o.Arguments)
	}
	d := set.Authorize(req)
	word := "deny "
	if d.Allow {
		word = "allow"
	}
	fmt.Fprintf(stdout, "%s  %s %s::%q for User::%q\n", word, req.Action, target.Type, target.Name, o.Principal.Name)
	for _, id := range d.Policies {
		fmt.Fprintf(stdout, "  policy %s (%s)\n", id, set.Where(id))
	}
	if d.Reason != "" {
		fmt.Fprintf(stdout, "  reason %s\n", d.Reason)
	}
	if !d.Allow && len(d.Policies) == 0 && d.Reason == "" {
		fmt.Fprintln(stdout, "  no policy permits it")
	}
	for _, e := range d.Errors {
		fmt.Fprintf(stdout, "  error  %s\n", e)
	}
	if d.Allow {
		return 0
	}
	return 1
}

// target finds what the request names among the plugins given, or
// describes it from the flags when none serves it.
func (o PolicyTestOptions) target() (policy.Target, error) {
	var t policy.Target
	if len(o.Args) > 0 || (o.Config != nil && len(o.Config.Plugins) > 0) {
		c, facts, err := o.load()
		if err != nil {
			return t, err
		}
		defer c.Close(time.Minute)
		switch {
		case o.Tool != "":
			if tool, ok := c.reg.Lookup(o.Tool); ok {
				return facts.Tool(tool), nil
			}
		case o.Prompt != "":
			if p, ok := c.reg.LookupPrompt(o.Prompt); ok {
				return facts.Prompt(p), nil
			}
		default:
			if pl, ok := c.reg.ResourceOwner(o.Resource); ok {
				return facts.Resource(o.Resource, c.reg.MatchedTemplate(o.Resource), pl), nil
			}
			if pl, ok := c.reg.TemplateOwner(o.Resource); ok && o.Complete {
				return facts.Resource(o.Resource, o.Resource, pl), nil
			}
		}
		if o.Plugin == "" {
			return t, fmt.Errorf("no plugin loaded serves %s (give --plugin to describe it)", o.name())
		}
	}
	if o.Plugin == "" {
		return t, errors.New("--plugin is required when no plugin is loaded")
	}
	t = policy.Target{Annotations: policy.DefaultAnnotations,
		Plugin: policy.Plugin{Name: o.Plugin, Signature: o.Signature}}
	if t.Plugin.Signature == "" {
		t.Plugin.Signature = "unsigned"
	}
	t.Name, t.Type, _ = o.kind()
	t.Declared = t.Name
	if o.Annotations != "" {
		var a struct {
			ReadOnly    bool  `json:"readOnlyHint"`
			Destructive *bool `json:"destructiveHint"`
			Idempotent  bool  `json:"idempotentHint"`
			OpenWorld   *bool `json:"openWorldHint"`
		}
		if err := json.Unmarshal([]byte(o.Annotations), &a); err != nil {
			return t, fmt.Errorf("--annotations: %v", err)
		}
		t.Annotations = policy.ToolAnnotations(a.ReadOnly, a.Destructive, a.Idempotent, a.OpenWorld)
	}
	return t, nil
}

// kind is what the request names, the one place --tool, --prompt and
// --resource are told apart: the name, its entity type, and the action a
// call, get or read is (--complete makes it a completion).
func (o PolicyTestOptions) kind() (string, types.EntityType, policy.Action) {
	switch {
	case o.Tool != "":
		return o.Tool, policy.TypeTool, policy.CallTool
	case o.Prompt != "":
		return o.Prompt, policy.TypePrompt, policy.GetPrompt
	}
	return o.Resource, policy.TypeResource, policy.ReadResource
}

func (o PolicyTestOptions) name() string {
	name, _, _ := o.kind()
	return name
}

// load loads the plugins as validate does, serving nothing.
func (o PolicyTestOptions) load() (*Catalog, *entity.Facts, error) {
	cfg := o.Config
	if cfg == nil {
		cfg = &config.Config{}
	}
	base, err := o.Limits.Defaults(cfg)
	if err != nil {
		return nil, nil, err
	}
	fetch := NewFetcher(context.Background(), o.Remote, cfg, slog.New(slog.DiscardHandler))
	fetch.DryRun = true
	specs, problems := Collect(o.Args, cfg, base, o.NoPrefix, fetch)
	c, err := Open(&o.Limits, nil)
	if err != nil {
		return nil, nil, err
	}
	deadline := o.LoadTimeout
	if deadline <= 0 {
		deadline = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	problems = append(problems, c.loadRanked(ctx, specs, deadline)...)
	if len(c.reg.Plugins()) == 0 && len(problems) > 0 {
		c.Close(time.Minute)
		return nil, nil, errors.Join(problems...)
	}
	return c, signatureFacts(fetch), nil
}

// PolicySchema prints the policy schema generated for the plugins the
// config and the arguments name (loaded, not served): the entity model,
// with context.arguments typed from their tools' and prompts' arguments.
// Arguments left out of it (untyped) are listed on stderr.
func PolicySchema(o PolicyTestOptions, stdout, stderr io.Writer) int {
	c, _, err := o.load()
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm policy schema:", err)
		return 1
	}
	defer c.Close(time.Minute)
	g := entity.Schema(c.reg)
	fmt.Fprint(stdout, g.Text)
	if len(g.Untyped) > 0 {
		fmt.Fprintf(stderr, "mcpwasm policy schema: arguments left out (no single Cedar type): %s\n", strings.Join(g.Untyped, ", "))
	}
	return 0
}
