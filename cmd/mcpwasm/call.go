package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/lifecycle"
	"github.com/mcpwasm/mcpwasm/host/registry"
)

func cmdCall(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("call", stderr, "usage: mcpwasm call [flags] PLUGIN.wasm TOOL [JSON-ARGUMENTS | @FILE | -]")
	var lf limitFlags
	var rf remoteFlags
	lf.register(fs)
	rf.register(fs)
	fs.Var(&lf.roots, "root", "grant the plugin read-only access to DIR (repeatable)")
	fs.Var(&lf.rwRoots, "rw-root", "grant the plugin read-write access to DIR (repeatable)")
	logLevel := fs.String("log-level", "warn", "stderr log level (debug shows guest stdout/stderr)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) < 2 || len(pos) > 3 {
		fs.Usage()
		return 2
	}
	argsJSON := "{}"
	if len(pos) == 3 {
		argsJSON = pos[2]
		// "-" reads the arguments from stdin, "@FILE" from a file.
		var data []byte
		var err error
		switch {
		case argsJSON == "-":
			data, err = io.ReadAll(os.Stdin)
		case strings.HasPrefix(argsJSON, "@"):
			data, err = os.ReadFile(argsJSON[1:])
		default:
			data = []byte(argsJSON)
		}
		if err != nil {
			fmt.Fprintln(stderr, "mcpwasm call:", err)
			return 2
		}
		argsJSON = string(data)
	}
	if !json.Valid([]byte(argsJSON)) {
		fmt.Fprintf(stderr, "mcpwasm call: the arguments are not valid JSON: %s\n", argsJSON)
		return 2
	}
	ctx := context.Background()
	logger := newLogger(stderr, *logLevel)
	fetch := lifecycle.NewFetcher(ctx, rf.options(), &config.Config{}, logger)
	fetch.DryRun = true
	limits := lf.limits()
	cat, _, err := lifecycle.LoadOne(ctx, pos[0], &limits, logger, fetch)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm call:", err)
		return 2
	}
	defer cat.Close(time.Minute)
	reg := cat.Registry()
	tool, ok := reg.Lookup(pos[1])
	if !ok {
		var names []string
		for _, t := range reg.Tools() {
			names = append(names, t.Def.Name)
		}
		fmt.Fprintf(stderr, "mcpwasm call: no tool %q in %s (it has: %s)\n", pos[1], pos[0], strings.Join(names, ", "))
		return 2
	}
	var mounts []abi.Mount
	for _, g := range tool.Plugin.Config().Grants {
		mounts = append(mounts, abi.Mount{Path: g.Path, ReadOnly: g.ReadOnly})
	}
	res := tool.Call(ctx, registry.CallRequest{Arguments: json.RawMessage(argsJSON), Invocation: registry.Invocation{Mounts: mounts}})
	out, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintln(stdout, string(out))
	if res.IsError {
		return 1
	}
	return 0
}

func cmdInspect(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var lf limitFlags
	var rf remoteFlags
	lf.register(fs)
	rf.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	cfgPath := fs.String("config", "", "also show what the config lets the plugin reach (network, filesystem, guest config; secrets by source)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: mcpwasm inspect [--json] [--config FILE] PLUGIN.wasm | oci://… | https://…")
		return 2
	}
	ctx := context.Background()
	fetch, err := inspectFetcher(ctx, rf.options(), *cfgPath, newLogger(stderr, "warn"))
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm inspect:", err)
		return 2
	}
	limits := lf.limits()
	cat, p, err := lifecycle.LoadOne(ctx, pos[0], &limits, newLogger(stderr, "warn"), fetch)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwasm inspect:", err)
		return 2
	}
	defer cat.Close(time.Minute)
	reg := cat.Registry()
	type imp struct{ Module, Name, Kind string }
	report := struct {
		Plugin     string      `json:"plugin"`
		Size       int         `json:"size_bytes"`
		ABIVersion int         `json:"abi_version"`
		Imports    []imp       `json:"imports"`
		Exports    []string    `json:"exports"`
		Tools      []any       `json:"tools"`
		Skills     []skillInfo `json:"skills,omitempty"`
		Decls      []declInfo  `json:"declarations"`
		Reach      *reach      `json:"reach"`
		Source     *remoteInfo `json:"source,omitempty"`
	}{Plugin: p.Name(), Size: len(p.Config().Wasm), ABIVersion: p.ABIVersion}
	if report.Reach, err = reachOf(*cfgPath, p.Name(), pos[0]); err != nil {
		fmt.Fprintln(stderr, "mcpwasm inspect:", err)
		return 2
	}
	for _, i := range p.Module.Imports {
		report.Imports = append(report.Imports, imp{i.Module, i.Name, i.Kind.String()})
	}
	for _, e := range p.Module.Exports {
		report.Exports = append(report.Exports, e.Name)
	}
	for _, t := range reg.Tools() {
		report.Tools = append(report.Tools, t.Def)
	}
	report.Skills = skillsOf(reg)
	if e, _, ok := reg.Entry(p); ok {
		if report.Decls, err = declarations(e); err != nil {
			fmt.Fprintln(stderr, "mcpwasm inspect:", err)
			return 2
		}
	}
	report.Source = remoteInfoOf(fetch.Result(pos[0]))
	if *asJSON {
		out, _ := json.MarshalIndent(report, "", "  ")
		fmt.Fprintln(stdout, string(out))
		return 0
	}
	fmt.Fprintf(stdout, "plugin   %s (%d bytes), ABI v%d\n", report.Plugin, report.Size, report.ABIVersion)
	report.Source.print(stdout)
	fmt.Fprintln(stdout, "imports")
	for _, i := range report.Imports {
		fmt.Fprintf(stdout, "  %s.%s (%s)\n", i.Module, i.Name, i.Kind)
	}
	fmt.Fprintf(stdout, "exports  %s\n", strings.Join(report.Exports, ", "))
	fmt.Fprintln(stdout, "tools")
	for _, t := range reg.Tools() {
		schema, _ := json.Marshal(t.Def.InputSchema)
		fmt.Fprintf(stdout, "  %s — %s\n    input: %s\n", escapeHidden(t.Def.Name), escapeHidden(t.Def.Description), escapeHidden(string(schema)))
	}
	printSkills(stdout, report.Skills)
	printDeclarations(stdout, report.Decls)
	report.Reach.print(stdout)
	return 0
}

// skillInfo is one skill the plugin ships, as inspect shows it.
type skillInfo struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Files       []string        `json:"files"`
	Bytes       int             `json:"bytes"`
}

func skillsOf(reg *registry.Registry) []skillInfo {
	var out []skillInfo
	for _, sk := range reg.Skills() {
		si := skillInfo{URI: sk.URI, Frontmatter: sk.Frontmatter}
		for _, f := range sk.Files {
			si.Files = append(si.Files, f.Path)
			si.Bytes += len(f.Data)
		}
		out = append(out, si)
	}
	return out
}

// printSkills lists the skills (ABI.md §5a) with their files.
func printSkills(w io.Writer, skills []skillInfo) {
	if len(skills) == 0 {
		return
	}
	fmt.Fprintln(w, "skills")
	for _, s := range skills {
		var fm struct{ Description string }
		_ = json.Unmarshal(s.Frontmatter, &fm)
		fmt.Fprintf(w, "  %s — %s\n    %d files, %d bytes: %s\n", escapeHidden(s.URI), escapeHidden(fm.Description),
			len(s.Files), s.Bytes, escapeHidden(strings.Join(s.Files, ", ")))
	}
}
