package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/host/lifecycle"
	"github.com/mcpwasm/mcpwasm/host/policy"
)

// policyUsage names the policy subcommands.
const policyUsage = `usage: mcpwasm policy test [flags] [PLUGIN.wasm | DIR]...    decide one request, without a server
       mcpwasm policy schema [flags] [PLUGIN.wasm | DIR]...  print the schema generated for the plugins
(mcpwasm policy test -h, mcpwasm policy schema -h for the flags)`

// cmdPolicy runs `mcpwasm policy test` (one request decided by the
// policies, without a server) and `mcpwasm policy schema`.
func cmdPolicy(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "schema" {
		return cmdPolicySchema(args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "test" {
		fmt.Fprintln(stderr, policyUsage)
		return 2
	}
	fs := newFlags("policy test", stderr,
		"usage: mcpwasm policy test [--config FILE | --policy FILE...] --principal NAME (--tool T | --prompt P | --resource URI) [--args JSON] [flags] [PLUGIN.wasm | DIR]...",
		"Decides one request as serve would and prints the decision and the policies that made it; exit 0 allowed, 1 denied, 2 usage.")
	var (
		o                             lifecycle.PolicyTestOptions
		lf                            loaderFlags
		files, scopes, groups, claims stringList
		cfgPath                       = fs.String("config", "", "TOML config: its [server.policy] policies, and its plugins loaded for their tools")
		at                            = fs.String("time", "", "the request's time, RFC 3339 (default now; its zone gives context.hour and context.weekday)")
	)
	fs.Var(&files, "policy", "a policy file to use besides the config's (repeatable)")
	fs.StringVar(&o.Schema, "schema", "", "a Cedar schema file the policies must match (instead of [server.policy] schema)")
	fs.StringVar(&o.Principal.Name, "principal", policy.StdioName, "who asks: a token's name or a JWT's subject")
	fs.Var(&scopes, "scope", "a scope of the principal's token (repeatable)")
	fs.Var(&groups, "group", "a group of the principal, as a JWT's groups claim (repeatable)")
	fs.Var(&claims, "claim", "a JWT claim NAME=VALUE, a tag of the principal (repeatable)")
	fs.StringVar(&o.Principal.Issuer, "issuer", "", "the JWT's issuer")
	fs.StringVar(&o.Principal.Auth, "auth", "", "how the principal authenticated: static, jwt or none (default: none for stdio, static for another principal; jwt with --issuer)")
	fs.StringVar(&o.Principal.Transport, "transport", "", "stdio or http (default: stdio for the stdio principal, http otherwise)")
	fs.StringVar(&o.Tool, "tool", "", "the tool called (its exposed name)")
	fs.StringVar(&o.Prompt, "prompt", "", "the prompt got")
	fs.StringVar(&o.Resource, "resource", "", "the resource read (its URI)")
	fs.BoolVar(&o.Complete, "complete", false, "a completion of the prompt's or resource's arguments instead")
	fs.StringVar(&o.Arguments, "args", "", "the request's arguments, a JSON object")
	fs.StringVar(&o.Protocol, "protocol", "2025-11-25", "the MCP protocol version (context.protocol)")
	fs.StringVar(&o.Session, "session", "", "the session id (context.session)")
	fs.StringVar(&o.Plugin, "plugin", "", "the plugin serving the target, when no plugin given serves it")
	fs.StringVar(&o.Signature, "signature", "unsigned", "with --plugin: its signature state (verified, unsigned, not checked, none)")
	fs.StringVar(&o.Annotations, "annotations", "", `with --plugin: the tool's annotations, JSON ({"readOnlyHint": true})`)
	lf.register(fs, &o.NoPrefix, &o.LoadTimeout)
	pos, err := parseArgs(fs, args[1:])
	if err != nil {
		return 2
	}
	o.Args, o.Files, o.Limits, o.Remote = pos, files, lf.limits(), lf.options()
	o.Principal.Scopes, o.Principal.Groups = scopes, groups
	if len(claims) > 0 {
		o.Principal.Claims = map[string]any{}
		for _, c := range claims {
			k, v, ok := strings.Cut(c, "=")
			if !ok || k == "" {
				fmt.Fprintf(stderr, "mcpwasm policy test: --claim %q: want NAME=VALUE\n", c)
				return 2
			}
			o.Principal.Claims[k] = v
		}
	}
	stdio := o.Principal.Name == policy.StdioName
	if o.Principal.Transport == "" {
		o.Principal.Transport = map[bool]string{true: "stdio", false: "http"}[stdio]
	}
	if o.Principal.Auth == "" {
		switch {
		case o.Principal.Issuer != "":
			o.Principal.Auth = "jwt"
		case stdio:
			o.Principal.Auth = "none"
		default:
			o.Principal.Auth = "static"
		}
	}
	if *at != "" {
		if o.Time, err = time.Parse(time.RFC3339, *at); err != nil {
			fmt.Fprintf(stderr, "mcpwasm policy test: --time: %v\n", err)
			return 2
		}
	}
	if o.Config, err = loadConfig(*cfgPath); err != nil {
		fmt.Fprintln(stderr, "mcpwasm policy test:", err)
		return 1
	}
	return lifecycle.PolicyTest(o, stdout, stderr)
}

// cmdPolicySchema prints the policy schema generated for the plugins the
// config and the arguments name: write your own [server.policy] schema
// from it.
func cmdPolicySchema(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("policy schema", stderr,
		"usage: mcpwasm policy schema [--config FILE] [flags] [PLUGIN.wasm | DIR]...",
		"Prints the Cedar schema validate checks policies against: the entity model, context.arguments typed from the plugins' tools and prompts.")
	var (
		o       lifecycle.PolicyTestOptions
		lf      loaderFlags
		cfgPath = fs.String("config", "", "TOML config whose plugins to load")
	)
	lf.register(fs, &o.NoPrefix, &o.LoadTimeout)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	o.Args, o.Limits, o.Remote = pos, lf.limits(), lf.options()
	if o.Config, err = loadConfig(*cfgPath); err != nil {
		fmt.Fprintln(stderr, "mcpwasm policy schema:", err)
		return 1
	}
	return lifecycle.PolicySchema(o, stdout, stderr)
}
