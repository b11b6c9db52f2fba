package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// SoakOptions configures "mcpwasm-bench --soak": N tools/call requests per
// transport, 95% echo and 5% hostile plugins, against the real binary.
type SoakOptions struct {
	// Calls is the number of tools/call requests per transport. Default
	// 100,000.
	Calls int
	// Clients is the number of concurrent clients: goroutines sharing the
	// one stdio stream, and HTTP sessions. Default 8.
	Clients int
	// Fixtures is the folder of the fixture plugins. Default: testdata/wasm
	// of the module.
	Fixtures string
	// Stdout receives the table; Stderr the progress. Nil discards.
	Stdout, Stderr io.Writer
}

// soakTool is one tool of the soak and the outcome it must have.
type soakTool struct {
	plugin, extra string
	want          string // "ok" or the abi error category
}

// soakHostile are the hostile plugins, one of which answers every 20th
// call in turn; echo answers the others. "busy" is accepted for any of
// them: a server shedding load under its budgets still answers.
var soakHostile = []soakTool{
	{"trap", "", "trap"},
	{"spin", `timeout = "200ms"`, "timeout"},
	{"grow_bomb", "", "out_of_memory"},
	{"kernel_bomb", "", "guest_error"},
	{"recurse", "", "stack_overflow"},
	{"calltree", `timeout = "200ms"`, "timeout"},
	{"bad_json", "", "bad_output"},
	{"bad_shape", "", "bad_output"},
}

// soakEcho is the tool of 95% of the calls.
var soakEcho = soakTool{"echo", "", "ok"}

// soakTarget returns the tool of call i (0-based): every 20th is hostile.
func soakTarget(i int) soakTool {
	if i%20 != 19 {
		return soakEcho
	}
	return soakHostile[(i/20)%len(soakHostile)]
}

// Targets of the soak's figures.
const (
	soakRSSTarget       = 1.5 // RSS at the end / after warm-up
	soakGoroutineMargin = 20  // goroutines at the end ≤ after warm-up + this
)

// SoakRun is the result over one transport.
type SoakRun struct {
	Transport string `json:"transport"`
	Calls     int    `json:"calls"`
	// AnsweredOnce, Lost and Duplicated count calls by the number of
	// answers carrying their id: one, none, more than one.
	AnsweredOnce int `json:"answered_once"`
	Lost         int `json:"lost"`
	Duplicated   int `json:"duplicated"`
	// Stray counts answers with an id no call used; Garbage, stdout lines
	// or SSE events that are not JSON-RPC.
	Stray   int `json:"stray"`
	Garbage int `json:"garbage"`
	// SendErrors counts HTTP requests that failed (their calls are lost).
	SendErrors int `json:"send_errors"`
	// Outcomes counts answers by tool and outcome: "ok", an error
	// category, or "rpc <code>" for a JSON-RPC error.
	Outcomes map[string]map[string]int `json:"outcomes"`
	// Unexpected counts answers whose outcome is not the tool's (nor busy),
	// and echo answers that do not carry their own call's marker.
	Unexpected int      `json:"unexpected"`
	Examples   []string `json:"unexpected_examples,omitempty"`
	Seconds    float64  `json:"seconds"`
	// RSS in bytes after the warm-up, at the end and at the highest sample.
	RSSWarm, RSSEnd, RSSPeak int64 `json:"-"`
	// Goroutines of the server after the warm-up and at the end (-1: not
	// observed).
	GoroutinesWarm, GoroutinesEnd int `json:"-"`
}

// CallsPerSecond is the run's throughput.
func (r *SoakRun) CallsPerSecond() float64 { return float64(r.Calls) / r.Seconds }

// RSSRatio is RSS at the end over RSS after the warm-up.
func (r *SoakRun) RSSRatio() float64 { return float64(r.RSSEnd) / float64(r.RSSWarm) }

// Failures are the broken promises: lost, duplicated, stray or garbage
// answers, and unexpected outcomes. "mcpwasm-bench --soak" exits 1 on any.
func (r *SoakRun) Failures() []string {
	var f []string
	add := func(n int, what string) {
		if n > 0 {
			f = append(f, fmt.Sprintf("%s: %d %s", r.Transport, n, what))
		}
	}
	add(r.Lost, "calls lost (no answer)")
	add(r.Duplicated, "calls answered more than once")
	add(r.Stray, "answers with an unknown id")
	add(r.Garbage, "non-JSON-RPC messages")
	add(r.SendErrors, "HTTP requests failed")
	add(r.Unexpected, "unexpected outcomes")
	return f
}

// Misses are the resource targets missed: RSS over 1.5× and goroutines not
// flat. They are reported, not failed on: one run on a shared machine is
// noisy.
func (r *SoakRun) Misses() []string {
	var m []string
	if r.RSSWarm > 0 && r.RSSRatio() > soakRSSTarget {
		m = append(m, fmt.Sprintf("%s: RSS grew %.2f× (target ≤ %.1f×)", r.Transport, r.RSSRatio(), soakRSSTarget))
	}
	if r.GoroutinesWarm < 0 || r.GoroutinesEnd < 0 {
		m = append(m, r.Transport+": goroutines not observed")
	} else if r.GoroutinesEnd > r.GoroutinesWarm+soakGoroutineMargin {
		m = append(m, fmt.Sprintf("%s: goroutines %d → %d (target ≤ +%d)", r.Transport, r.GoroutinesWarm, r.GoroutinesEnd, soakGoroutineMargin))
	}
	return m
}

// SoakReport is the result of a soak over both transports.
type SoakReport struct {
	Runs []*SoakRun
}

// Soak builds mcpwasm, then runs o.Calls tools/call requests over stdio and
// o.Calls over Streamable HTTP, each against a fresh server serving echo
// and the hostile fixtures, and prints the table. It checks every answer by
// its JSON-RPC id with a client of its own (a go-sdk client would hide a
// duplicate). It returns an error only when the soak could not run;
// the report's Failures say whether the server kept its promise.
func Soak(ctx context.Context, o SoakOptions) (*SoakReport, error) {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Calls <= 0 {
		o.Calls = 100000
	}
	if o.Clients <= 0 {
		o.Clients = 8
	}
	e := &env{o: Options{Stdout: o.Stdout, Stderr: o.Stderr}, rep: newReport()}
	defer e.close()
	goBin, err := e.locate(o.Fixtures)
	if err != nil {
		return nil, err
	}
	var cfg strings.Builder
	for _, t := range append([]soakTool{soakEcho}, soakHostile...) {
		p, err := e.fixture(t.plugin)
		if err != nil {
			return nil, err
		}
		extra := []string{}
		if t.extra != "" {
			extra = append(extra, t.extra)
		}
		cfg.WriteString(pluginTOML(t.plugin, p, extra...))
	}
	if e.tmp, err = os.MkdirTemp("", "mcpwasm-soak-"); err != nil {
		return nil, err
	}
	cfgPath, err := e.writeConfig("soak", cfg.String())
	if err != nil {
		return nil, err
	}
	e.cache = filepath.Join(e.tmp, "cache")
	e.progress("building mcpwasm from %s", e.root)
	if e.mcpwasm, _, err = build(ctx, goBin, e.root, e.tmp); err != nil {
		return nil, err
	}
	e.progress("soak: %d calls per transport, %d clients, 1 in 20 hostile (%d kinds)", o.Calls, o.Clients, len(soakHostile))
	rep := &SoakReport{}
	for _, transport := range []string{"stdio", "http"} {
		t0 := time.Now()
		run, err := e.soak(ctx, transport, cfgPath, o)
		if err != nil {
			return rep, fmt.Errorf("soak over %s: %v", transport, err)
		}
		e.progress("   %s took %v", transport, time.Since(t0).Round(time.Millisecond))
		rep.Runs = append(rep.Runs, run)
	}
	rep.print(o.Stdout)
	return rep, nil
}

// Failures are every run's failures.
func (r *SoakReport) Failures() []string {
	var f []string
	for _, run := range r.Runs {
		f = append(f, run.Failures()...)
	}
	return f
}

// soakServer is a running server with a way to send one JSON-RPC message
// and the answers routed back to the tracker.
type soakServer struct {
	pid   int
	debug string // the debugging endpoint's address
	// send sends one request from client c. Answers reach tr.deliver.
	send func(ctx context.Context, c int, msg []byte) error
	// sendErrorsCount: a failed send is a lost call, not the end of the
	// soak (HTTP; on stdio a failed write means the server is gone).
	sendErrorsCount bool
	close           func()
}

// soak runs one transport.
func (e *env) soak(ctx context.Context, transport, cfgPath string, o SoakOptions) (*SoakRun, error) {
	tr := newTracker(o.Calls)
	var srv *soakServer
	var err error
	if transport == "stdio" {
		srv, err = e.soakStdio(ctx, cfgPath, tr)
	} else {
		srv, err = e.soakHTTP(ctx, cfgPath, tr, o.Clients)
	}
	if err != nil {
		return nil, err
	}
	defer srv.close()
	run := &SoakRun{Transport: transport, Calls: o.Calls}

	stopSampling := samplePeakRSS(srv.pid, 100*time.Millisecond)

	warm := max(o.Calls/20, 1)
	start := time.Now()
	phase := func(from, to int) error {
		var next atomic.Int64
		next.Store(int64(from))
		var wg sync.WaitGroup
		errs := make(chan error, o.Clients)
		for c := range o.Clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= to || ctx.Err() != nil {
						return
					}
					if err := e.soakCall(ctx, srv, tr, c, i); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return err
		}
		return ctx.Err()
	}
	// settle lets the calls timed out by the client, if any, end in the
	// server, then samples RSS and goroutines.
	settle := func() (int64, int) {
		tr.waitAnswered(ctx, 30*time.Second)
		time.Sleep(time.Second)
		b, _ := rssOf(srv.pid)
		return b, goroutines(srv.debug)
	}
	if err := phase(0, warm); err != nil {
		return nil, err
	}
	run.RSSWarm, run.GoroutinesWarm = settle()
	e.progress("   %s: warm-up (%d calls) done: RSS %.1f MiB, %d goroutines", transport, warm, mib(run.RSSWarm), run.GoroutinesWarm)
	if err := phase(warm, o.Calls); err != nil {
		return nil, err
	}
	run.Seconds = time.Since(start).Seconds()
	run.RSSEnd, run.GoroutinesEnd = settle()
	run.RSSPeak = max(stopSampling(), run.RSSEnd, run.RSSWarm)
	tr.fill(run)
	e.progress("   %s: %d calls in %.1f s: RSS %.1f MiB, %d goroutines", transport, o.Calls, run.Seconds, mib(run.RSSEnd), run.GoroutinesEnd)
	return run, nil
}

// soakCallWait is how long a client waits for one answer before it moves
// on; a call still unanswered at the end is lost.
const soakCallWait = 60 * time.Second

// soakCall sends call i from client c and waits for its answer.
func (e *env) soakCall(ctx context.Context, srv *soakServer, tr *tracker, c, i int) error {
	t := soakTarget(i)
	id := i + 1
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s_%s","arguments":{"message":"soak-%d"}}}`,
		id, t.plugin, t.plugin, id)
	ch := tr.expect(id, t)
	if err := srv.send(ctx, c, []byte(msg)); err != nil {
		tr.giveUp(id)
		if !srv.sendErrorsCount || ctx.Err() != nil {
			return fmt.Errorf("call %d: %v", id, err)
		}
		tr.sendError(id, err) // an HTTP request that failed: the call is lost
	}
	select {
	case <-ch:
	case <-time.After(soakCallWait):
		tr.giveUp(id)
	case <-ctx.Done():
	}
	return nil
}

// print writes the soak's table: one column per transport.
func (r *SoakReport) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "figure"
	for _, run := range r.Runs {
		head += "\t" + run.Transport
	}
	fmt.Fprintln(tw, head+"\ttarget")
	row := func(fig, target string, f func(*SoakRun) string) {
		line := fig
		for _, run := range r.Runs {
			line += "\t" + f(run)
		}
		fmt.Fprintln(tw, line+"\t"+target)
	}
	num := func(f func(*SoakRun) int) func(*SoakRun) string {
		return func(run *SoakRun) string { return strconv.Itoa(f(run)) }
	}
	row("tools/call requests", "", num(func(x *SoakRun) int { return x.Calls }))
	row("answered exactly once", "all", num(func(x *SoakRun) int { return x.AnsweredOnce }))
	row("lost (no answer)", "0", num(func(x *SoakRun) int { return x.Lost }))
	row("duplicated", "0", num(func(x *SoakRun) int { return x.Duplicated }))
	row("stray ids / non-JSON-RPC / failed HTTP", "0", func(x *SoakRun) string {
		return fmt.Sprintf("%d / %d / %d", x.Stray, x.Garbage, x.SendErrors)
	})
	row("unexpected outcomes", "0", num(func(x *SoakRun) int { return x.Unexpected }))
	for _, t := range append([]soakTool{soakEcho}, soakHostile...) {
		row("  "+t.plugin, t.want, func(x *SoakRun) string { return outcomes(x.Outcomes[t.plugin]) })
	}
	row("calls/s", "", func(x *SoakRun) string { return fmt.Sprintf("%.0f", x.CallsPerSecond()) })
	row("RSS after warm-up → end (MiB)", "", func(x *SoakRun) string {
		return fmt.Sprintf("%.1f → %.1f", mib(x.RSSWarm), mib(x.RSSEnd))
	})
	row("RSS end / warm-up", fmt.Sprintf("≤ %.1f×", soakRSSTarget), func(x *SoakRun) string { return fmt.Sprintf("%.2f×", x.RSSRatio()) })
	row("RSS peak (MiB)", "", func(x *SoakRun) string { return fmt.Sprintf("%.1f", mib(x.RSSPeak)) })
	row("goroutines after warm-up → end", fmt.Sprintf("≤ +%d", soakGoroutineMargin), func(x *SoakRun) string {
		return fmt.Sprintf("%d → %d", x.GoroutinesWarm, x.GoroutinesEnd)
	})
	tw.Flush()
	var fails, misses []string
	for _, run := range r.Runs {
		fails = append(fails, run.Failures()...)
		misses = append(misses, run.Misses()...)
		for _, ex := range run.Examples {
			fmt.Fprintf(w, "  %s: %s\n", run.Transport, ex)
		}
	}
	switch {
	case len(fails) > 0:
		fmt.Fprintf(w, "verdict: FAIL: %s\n", strings.Join(append(fails, misses...), "; "))
	case len(misses) > 0:
		fmt.Fprintf(w, "verdict: every call answered exactly once; MISS: %s\n", strings.Join(misses, "; "))
	default:
		fmt.Fprintln(w, "verdict: PASS: every call answered exactly once, RSS and goroutines flat")
	}
}

// outcomes formats one tool's outcome counts, most frequent first.
func outcomes(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
