// Package bench is the side-by-side benchmark harness of issue 8, run as
// "mcpwasm-bench".
//
// It builds the mcpwasm command and a plain go-sdk server from the module's
// own source, installs the Node reference server with npm, and measures them
// with one go-sdk client: tools/call latency over stdio at two protocol
// versions, Streamable HTTP throughput, cold start, memory, a noisy
// neighbour and timeout precision. The machine is assumed noisy, so every
// comparison is measured side by side in one run, interleaved round-robin
// across targets, and reported as the median over rounds of a per-round
// ratio. The result is one table (figure, value, target, verdict) and,
// optionally, the raw per-round numbers as JSON.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures a run. The zero value, with Stdout and Stderr set, is a
// full run against testdata/wasm.
type Options struct {
	// Rounds is how many interleaved rounds each figure is measured over;
	// figures are medians over rounds. Default 5, or 3 with Quick.
	Rounds int
	// Quick shrinks every measurement for a run of about 30 s.
	Quick bool
	// JSON, if set, is a file to write the report and raw numbers to.
	JSON string
	// Plugins are guest-language echo plugins measured beside the minimal
	// WAT echo over stdio.
	Plugins []GuestPlugin
	// ColdPlugins is a folder of about 10 plugins, one of them a ~3 MB
	// standard-Go build, for the cold start and idle memory figures. Empty
	// skips those figures.
	ColdPlugins string
	// Fixtures is the folder holding echo.wasm, spin.wasm, nap.wasm and
	// recurse.wasm. Default: testdata/wasm of the module.
	Fixtures string
	// NoNode skips the Node reference server.
	NoNode bool
	// Calls is the number of timed stdio calls per target, protocol version
	// and round. Default 2000, or 300 with Quick.
	Calls int
	// HTTPTime is how long each throughput cell runs per round. Default
	// 1.5 s, or 200 ms with Quick.
	HTTPTime time.Duration
	// Stdout receives the table; Stderr the progress. Nil discards.
	Stdout, Stderr io.Writer
}

// GuestPlugin is an echo plugin written in a guest language, measured as
// tool NAME_TOOL of the same mcpwasm server that serves the WAT echo. It
// must echo its "message" argument.
type GuestPlugin struct {
	Name, Path, Tool string
}

var pluginName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ParsePlugin parses a --plugin value, NAME=PATH:TOOL.
func ParsePlugin(s string) (GuestPlugin, error) {
	name, rest, ok := strings.Cut(s, "=")
	i := strings.LastIndex(rest, ":")
	if !ok || i <= 0 || i == len(rest)-1 || !pluginName.MatchString(name) {
		return GuestPlugin{}, fmt.Errorf("--plugin %q: want NAME=PATH:TOOL, NAME of letters, digits, _ and -", s)
	}
	return GuestPlugin{Name: name, Path: rest[:i], Tool: rest[i+1:]}, nil
}

// benchArgs are the arguments of every echo call: the Node server's echo
// requires "message"; the others echo whatever they get.
var benchArgs = map[string]any{"message": "the quick brown fox jumps over the lazy dog"}

// Protocol versions measured separately over stdio.
var stdioVersions = []string{"2025-11-25", "2026-07-28"}

// httpVersion is the protocol of the throughput figures: stateful
// Streamable HTTP, the mcpwasm default.
const httpVersion = "2025-11-25"

// env is one run's shared state.
type env struct {
	o        Options
	rounds   int
	calls    int
	httpTime time.Duration
	levels   []int

	root, tmp, fixtures string
	mcpwasm, plain      string
	cache               string // compile cache shared by the servers under measurement (warm after first use)
	client              *mcp.Client
	http                *http.Client
	rep                 *Report

	mu      sync.Mutex
	cleanup []func()
}

func (e *env) track(f func()) {
	e.mu.Lock()
	e.cleanup = append(e.cleanup, f)
	e.mu.Unlock()
}

func (e *env) progress(format string, args ...any) {
	fmt.Fprintf(e.o.Stderr, "bench: "+format+"\n", args...)
}

// warn reports something that makes the table incomplete, loudly.
func (e *env) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(e.o.Stderr, "bench: !!!!!!!! %s\n", msg)
	e.rep.Warnings = append(e.rep.Warnings, msg)
}

// locate finds the go command, the module's root and the fixtures folder
// (fixtures, or testdata/wasm of the module).
func (e *env) locate(fixtures string) (goBin string, err error) {
	if goBin, err = exec.LookPath("go"); err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	if e.root, err = moduleRoot(goBin); err != nil {
		return "", err
	}
	e.fixtures = fixtures
	if e.fixtures == "" {
		e.fixtures = filepath.Join(e.root, "testdata", "wasm")
	}
	return goBin, nil
}

// close runs the cleanups in reverse order and removes the run's temporary
// folder.
func (e *env) close() {
	for i := len(e.cleanup) - 1; i >= 0; i-- {
		e.cleanup[i]()
	}
	if e.tmp != "" {
		os.RemoveAll(e.tmp)
	}
}

// Run builds the servers, measures every figure, prints the table on
// o.Stdout, writes o.JSON if set, and returns the report. A figure that
// cannot be measured is reported as skipped, with the reason; Run fails only
// when nothing can be measured (no build, no echo fixture).
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	e := &env{o: o, rounds: o.Rounds, calls: o.Calls, httpTime: o.HTTPTime, levels: []int{1, 8, 32},
		client: mcp.NewClient(&mcp.Implementation{Name: "mcpwasm-bench", Version: "1"}, nil),
		http:   newHTTPClient(), rep: newReport()}
	if e.rounds <= 0 {
		e.rounds = pick(o.Quick, 3, 5)
	}
	if e.calls <= 0 {
		e.calls = pick(o.Quick, 300, 2000)
	}
	if e.httpTime <= 0 {
		e.httpTime = pick(o.Quick, 200*time.Millisecond, 1500*time.Millisecond)
	}
	defer e.close()
	goBin, err := e.locate(o.Fixtures)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(e.fixtures, "echo.wasm")); err != nil {
		return nil, fmt.Errorf("echo fixture: %v (run testdata/build.sh, or make test)", err)
	}
	for _, g := range o.Plugins {
		if _, err := os.Stat(g.Path); err != nil {
			return nil, fmt.Errorf("--plugin %s: %v", g.Name, err)
		}
	}
	if e.tmp, err = os.MkdirTemp("", "mcpwasm-bench-"); err != nil {
		return nil, err
	}
	e.cache = filepath.Join(e.tmp, "cache")
	e.progress("building mcpwasm and the plain go-sdk server from %s", e.root)
	if e.mcpwasm, e.plain, err = build(ctx, goBin, e.root, e.tmp); err != nil {
		return nil, err
	}
	e.describeMachine(goBin)
	e.progress("%d rounds; %d calls per target and round over stdio; %v per HTTP cell", e.rounds, e.calls, e.httpTime)

	start := time.Now()
	for _, step := range []struct {
		name string
		f    func(context.Context) error
	}{
		{"1 stdio latency", e.stdioLatency},
		{"2 HTTP throughput", e.httpThroughput},
		{"3-4 cold start and idle memory", e.coldStart},
		{"4 memory per in-flight call", e.inflightMemory},
		{"5-6 noisy neighbour and timeouts", e.sandboxLimits},
		{"7 compute and deadlines", e.compute},
	} {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t := time.Now()
		e.progress("== %s", step.name)
		if err := step.f(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			e.warn("%s: %v", step.name, err)
		}
		e.progress("   %s took %v", step.name, time.Since(t).Round(time.Millisecond))
	}
	e.rep.Machine.Seconds = time.Since(start).Seconds()
	e.progress("measured in %v", time.Since(start).Round(time.Second))

	e.rep.print(o.Stdout)
	if o.JSON != "" {
		data, err := json.MarshalIndent(e.rep, "", "  ")
		if err != nil {
			return e.rep, err
		}
		if err := os.WriteFile(o.JSON, append(data, '\n'), 0o644); err != nil {
			return e.rep, err
		}
		e.progress("raw numbers written to %s", o.JSON)
	}
	return e.rep, nil
}

func pick[T any](quick bool, q, full T) T {
	if quick {
		return q
	}
	return full
}

func (e *env) describeMachine(goBin string) {
	m := &e.rep.Machine
	m.CPUs, m.GOMAXPROCS, m.OS = runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS+"/"+runtime.GOARCH
	m.Rounds, m.Calls, m.HTTPSeconds, m.Quick = e.rounds, e.calls, e.httpTime.Seconds(), e.o.Quick
	if out, err := exec.Command(goBin, "env", "GOVERSION").Output(); err == nil {
		m.Go = strings.TrimSpace(string(out))
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	e.progress("machine: %d CPUs (%s), %s, %s", m.CPUs, m.CPUModel, m.OS, m.Go)
}

// callTool calls tool and fails on a transport error or an isError result.
func callTool(ctx context.Context, cs *mcp.ClientSession, tool string, args any) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return res, fmt.Errorf("%s answered isError: %s", tool, resultText(res))
	}
	return res, nil
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	s := b.String()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// errorCategory is mcpwasm's failure category of an isError result.
func errorCategory(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	c, _ := res.Meta[abi.MetaErrorKey].(string)
	return c
}

// writeConfig writes a mcpwasm TOML configuration and returns its path.
func (e *env) writeConfig(name, body string) (string, error) {
	p := filepath.Join(e.tmp, name+".toml")
	return p, os.WriteFile(p, []byte(body), 0o644)
}

func pluginTOML(name, path string, extra ...string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	s := "[[plugin]]\nname = " + tomlString(name) + "\npath = " + tomlString(abs) + "\n"
	for _, x := range extra {
		s += x + "\n"
	}
	return s + "\n"
}

// fixture returns the path of a fixture plugin, or an error naming the
// build script.
func (e *env) fixture(name string) (string, error) {
	p := filepath.Join(e.fixtures, name+".wasm")
	if _, err := os.Stat(p); err != nil {
		return "", errors.New(name + ".wasm is not built (run testdata/build.sh)")
	}
	return p, nil
}
