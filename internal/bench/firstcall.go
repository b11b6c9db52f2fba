package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Figure names of the first calls (issue 40), shared by the rows and the test.
const (
	figFirstEmpty = "3 start → every plugin's first call answered, in turn, empty compile cache"
	figFirstWarm  = "3 start → every plugin's first call answered, in turn, warm compile cache"
)

// cheapTools are the tools a first call prefers, by declared name: each
// answers at once for the plugins of scripts/cold-plugins.sh. A plugin
// with none of them gets its first listed tool.
var cheapTools = []string{"echo", "test_simple_text", "greet", "reverse", "uuid", "slugify", "convert", "to_text", "stat", "get_json"}

// firstCall is one plugin's cheap call.
type firstCall struct {
	plugin, tool string
	args         map[string]any
}

// firstCallPlan picks a cheap call per plugin of dir (named by its file),
// in the plugins' alphabetical order, from the tools a server listed.
func firstCallPlan(dir string, tools []*mcp.Tool) []firstCall {
	files, _ := filepath.Glob(filepath.Join(dir, "*.wasm"))
	var plan []firstCall
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".wasm")
		var own []*mcp.Tool
		for _, t := range tools {
			if strings.HasPrefix(t.Name, name+"_") {
				own = append(own, t)
			}
		}
		if len(own) == 0 {
			continue
		}
		pick := own[0]
	prefer:
		for _, want := range cheapTools {
			for _, t := range own {
				if t.Name == name+"_"+want {
					pick = t
					break prefer
				}
			}
		}
		plan = append(plan, firstCall{plugin: name, tool: pick.Name, args: argsFor(pick.InputSchema)})
	}
	sort.Slice(plan, func(i, j int) bool { return plan[i].plugin < plan[j].plugin })
	return plan
}

// argsFor fills a tool's required arguments with a value of each one's
// type (an enum's first value): enough for the guest to run.
func argsFor(schema any) map[string]any {
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type any   `json:"type"`
			Enum []any `json:"enum"`
		} `json:"properties"`
	}
	b, _ := json.Marshal(schema)
	_ = json.Unmarshal(b, &s)
	args := map[string]any{}
	for _, k := range s.Required {
		p := s.Properties[k]
		if len(p.Enum) > 0 {
			args[k] = p.Enum[0]
			continue
		}
		typ, _ := p.Type.(string)
		if l, ok := p.Type.([]any); ok && len(l) > 0 {
			typ, _ = l[0].(string)
		}
		switch typ {
		case "number", "integer":
			args[k] = 1
		case "boolean":
			args[k] = true
		case "array":
			args[k] = []any{}
		case "object":
			args[k] = map[string]any{}
		default:
			args[k] = "a"
		}
	}
	return args
}

// firstCallRun is what one start answered: when the last first call was
// answered (from process start), and the slowest call.
type firstCallRun struct {
	all, slowest time.Duration
	slowestName  string
	calls        int      // plugins called
	failed       []string // calls that got no answer from the guest (protocol errors)
}

// firstCalls starts bin with args (serving dir), lists the tools, then
// calls each plugin's cheap tool in turn, and reports when the last one was
// answered, counted from the process start. A tool error (isError) counts
// as answered: the guest ran.
func (e *env) firstCalls(ctx context.Context, dir, bin string, args ...string) (firstCallRun, error) {
	var r firstCallRun
	t0 := time.Now()
	p, err := e.startStdio(ctx, httpVersion, bin, args...)
	if err != nil {
		return r, err
	}
	defer p.close()
	var tools []*mcp.Tool
	for t, err := range p.cs.Tools(ctx, nil) { // every page
		if err != nil {
			return r, fmt.Errorf("tools/list: %v (stderr: %s)", err, p.stderr)
		}
		tools = append(tools, t)
	}
	plan := firstCallPlan(dir, tools)
	r.calls = len(plan)
	for _, c := range plan {
		t := time.Now()
		if _, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil {
			r.failed = append(r.failed, c.tool+": "+short(err))
		}
		if d := time.Since(t); d > r.slowest {
			r.slowest, r.slowestName = d, c.tool
		}
	}
	r.all = time.Since(t0)
	return r, nil
}

// firstCallRound measures one start of bin with an empty cache (a folder
// of its own, removed after) and one with the warm cache, and records them
// (label "" for the build measured, else the baseline's name).
func (e *env) firstCallRound(ctx context.Context, bin, label, dir, warmCache string, r int, empty, warm *[]float64) error {
	// --trust off: the trust store holds declarations it has not approved
	// (the conformance fixture's and the echo's, here), and a held tool
	// cannot be called.
	serve := func(cache string) []string {
		return []string{"serve", "--cache-dir", cache, "--log-level", "warn", "--trust", "off", dir}
	}
	coldDir := filepath.Join(e.tmp, fmt.Sprintf("first-call-cache%s-%d", label, r))
	c, err := e.firstCalls(ctx, dir, bin, serve(coldDir)...)
	os.RemoveAll(coldDir)
	if err != nil {
		return err
	}
	w, err := e.firstCalls(ctx, dir, bin, serve(warmCache)...)
	if err != nil {
		return err
	}
	for _, f := range append(c.failed, w.failed...) {
		e.warn("first call without an answer: %s", f)
	}
	*empty, *warm = append(*empty, ms(c.all)), append(*warm, ms(w.all))
	key := "first_call/"
	if label != "" {
		key = "first_call_baseline/"
	}
	e.rep.raw(key+"all_empty_cache_ms", ms(c.all))
	e.rep.raw(key+"all_warm_cache_ms", ms(w.all))
	e.progress("   first calls%s, round %d, %d plugins: empty cache %.0f ms (slowest %s %.0f ms), warm %.0f ms (slowest %s %.0f ms)",
		label, r+1, c.calls, ms(c.all), c.slowestName, ms(c.slowest), ms(w.all), w.slowestName, ms(w.slowest))
	return nil
}

// reportFirstCalls adds the first-call rows (issue 40's targets).
func (e *env) reportFirstCalls(desc string, empty, warm []float64) {
	e.rep.check(figFirstEmpty+" ("+desc+")", median(empty), "ms", "<=", 1000, "≤ 1.0 s")
	e.rep.check(figFirstWarm, median(warm), "ms", "<=", 100, "≤ 100 ms")
}
